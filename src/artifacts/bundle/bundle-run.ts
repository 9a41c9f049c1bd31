import { lstat } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { errnoOf, WorkspaceError, writeFileAtomically } from '../../workspace/index.js';
import { BundleError } from './bundle-error.js';
import {
  artifactRecordsPath,
  isRunId,
  OBJECTS_DIR,
  objectPath,
  runDir,
  sha256Hex,
  UnknownRunError,
} from '../../project/index.js';
import type { RunId } from '../../project/index.js';
import { isRunRecordFile, RUN_RECORD_FILES_SHOWN } from './is-run-record-file.js';
import { BUNDLE_MANIFEST_PATH } from './bundle-manifest.js';
import type { BundleManifest } from './bundle-manifest.js';
import { hexOfContentHash } from '../../store/index.js';
import { writeBundleArchive } from './write-bundle-archive.js';
import { checkWrittenBundle } from './check-written-bundle.js';
import { checkRecordPaths } from './check-record-paths.js';
import { parseTrace } from './read-bundle-archive.js';
import type { ArchiveEntry } from './write-bundle-archive.js';
import { whyPathUnsafe } from './judge-bundle-entry.js';
import { readRunFolder, readStoredObject, recordsOfRun, referencedObjects } from './bundle-sources.js';

/** Options of {@link bundleRun}. */
export interface BundleOptions {
  /** Replace an existing file at the output path (never a folder). */
  readonly force?: boolean;
  /** Clock for the manifest's `createdAt`, for reproducible bundles and tests. */
  readonly now?: () => Date;
}

/** What {@link bundleRun} wrote. */
export interface BundleSummary {
  /** The bundle's absolute path. */
  readonly file: string;
  readonly runId: string;
  /** Run files packed. */
  readonly files: number;
  /** Objects packed. */
  readonly objects: number;
  /** Size of the bundle file. */
  readonly bytes: number;
}

/**
 * Packs run `runId` and every object its records reference into a gzip tar at `outFile`, written atomically
 * (a temp file beside it, then a rename); refuses with a {@link BundleError} before anything is written.
 */
export async function bundleRun(
  projectDir: string,
  runId: string,
  outFile: string,
  options: BundleOptions = {},
): Promise<BundleSummary> {
  const target = resolve(outFile);
  if (!isRunId(runId)) throw new UnknownRunError(runId);
  const folder = await readRunFolder(projectDir, runId);
  if (folder === undefined) throw new UnknownRunError(runId);
  checkPaths(
    runId,
    folder.files.map((file) => file.path),
  );
  const records = recordsOfRun(runId, folder.files);
  const objects = referencedObjects(records);
  // A path an import would refuse refuses the bundle: none is made that no project could import.
  await checkRecordPaths(
    runId,
    records,
    async (hash) => parseTrace(await readVerifiedObject(projectDir, hash)),
    `no project would import the run: correct or remove that line of ${artifactRecordsPath(runId)} and bundle again`,
  );
  await checkOutput(target, options.force === true);
  // Verified before packing, so a missing or corrupt object refuses the bundle instead of shipping it.
  for (const hash of objects) await readVerifiedObject(projectDir, hash);

  const manifest: BundleManifest = {
    version: 1,
    runId,
    createdAt: (options.now ?? (() => new Date()))().toISOString(),
    files: folder.files.map((file) => ({
      path: file.path,
      sha256: sha256Hex(file.bytes),
      bytes: file.bytes.byteLength,
    })),
    objects,
  };
  const manifestBytes = Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`, 'utf8');
  const entries: ArchiveEntry[] = [
    { type: 'File', path: BUNDLE_MANIFEST_PATH, bytes: () => Promise.resolve(manifestBytes) },
    ...folder.directories.map((path): ArchiveEntry => ({ type: 'Directory', path: `${path}/` })),
    ...folder.files.map((file): ArchiveEntry => ({
      type: 'File',
      path: file.path,
      bytes: () => Promise.resolve(file.bytes),
    })),
    ...objects.map((hash): ArchiveEntry => ({
      type: 'File',
      path: objectPath(hexOfContentHash(hash) ?? ''),
      // Read (and re-verified) one at a time while packing, so memory holds one object, not the store.
      bytes: () => readVerifiedObject(projectDir, hash),
    })),
  ];
  const bytes = await writeAtomically(
    target,
    options.force === true,
    (handle) => writeBundleArchive(handle, entries),
    // Read back before it is moved into place: exit 0 means the whole bundle is on disk.
    (temp) => checkWrittenBundle(temp, manifest),
  );
  return { file: target, runId, files: folder.files.length, objects: objects.length, bytes };
}

/** Refuses a run file whose name an import would refuse, rather than writing a bundle nobody can import. */
function checkPaths(runId: RunId, paths: readonly string[]): void {
  for (const path of paths) {
    const unsafe = whyPathUnsafe(path);
    if (unsafe !== undefined) {
      throw new BundleError({
        code: 'unsafe_path',
        entry: path,
        message: `run file ${JSON.stringify(path)} ${unsafe}, so no project could import it; rename or remove it and bundle again`,
      });
    }
    // An import refuses any other file (a bundle is not a way to carry arbitrary files), so it is refused here too.
    if (!isRunRecordFile(path.slice(runDir(runId).length + 1))) {
      throw new BundleError({
        code: 'unexpected_entry',
        entry: path,
        message: `run file ${JSON.stringify(path)} is not a file a run folder holds (${RUN_RECORD_FILES_SHOWN}), so no project would import it; move it out of the run folder and bundle again`,
      });
    }
  }
}

async function readVerifiedObject(projectDir: string, hash: string): Promise<Uint8Array> {
  const stored = await readStoredObject(projectDir, hash);
  switch (stored.status) {
    case 'ok':
      return stored.bytes;
    case 'missing':
      throw new BundleError({
        code: 'missing_object',
        entry: hash,
        message: `object ${hash} referenced by the run is not in ${OBJECTS_DIR}; restore it (from another bundle or by putting its content again) and bundle again`,
      });
    case 'corrupt':
      throw new BundleError({
        code: 'corrupt_object',
        entry: hash,
        message: `object ${hash} referenced by the run is corrupt (${stored.why}); restore its original content and bundle again`,
      });
  }
}

async function checkOutput(target: string, force: boolean): Promise<void> {
  let info;
  try {
    info = await lstat(target);
  } catch (error) {
    if (errnoOf(error) === 'ENOENT') return;
    throw error;
  }
  if (!force) throw outputExists(target);
  if (info.isDirectory()) {
    throw new BundleError({
      code: 'output_exists',
      message: `${target} is a folder; --force replaces only a file, so choose a file name for -o`,
    });
  }
}

function outputExists(target: string): BundleError {
  return new BundleError({
    code: 'output_exists',
    message: `${target} already exists; choose another -o or pass --force to replace it`,
  });
}

/** Writes the archive through the workspace's atomic file writer; maps its outcomes to bundle refusals. */
async function writeAtomically(
  target: string,
  force: boolean,
  fill: (handle: FileHandle) => Promise<number>,
  check: (temp: string) => Promise<void>,
): Promise<number> {
  let written;
  try {
    written = await writeFileAtomically(target, fill, { replace: force, check });
  } catch (error) {
    if (error instanceof WorkspaceError && error.syscall === 'open') {
      throw new BundleError({
        code: 'output_unwritable',
        message: `cannot create a file in ${dirname(target)} (${error.code}); create the folder or choose another -o`,
        cause: error,
      });
    }
    throw error;
  }
  if (written.status === 'exists') throw outputExists(target);
  return written.bytes;
}
