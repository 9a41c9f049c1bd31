import { resolve } from 'node:path';
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
import { hexOfContentHash, usingProject } from '../../store/index.js';
import type { ObjectStore, ProjectRef } from '../../store/index.js';
import { checkBundleOutput, writeBundleFile } from './write-bundle-archive.js';
import { checkWrittenBundle } from './check-written-bundle.js';
import { checkRecordPaths } from './check-record-paths.js';
import { parseTrace } from './read-bundle-archive.js';
import type { ArchiveEntry } from './write-bundle-archive.js';
import { whyPathUnsafe } from './judge-bundle-entry.js';
import {
  isStoreKey,
  readRunFolder,
  readStoredObject,
  recordsOfRun,
  referencedObjects,
} from './bundle-sources.js';
import type { RunFolder } from './bundle-sources.js';

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
 * Packs run `runId` of `project` (a folder, or a {@link Project} on any store) and every object its records
 * reference into a gzip tar at `outFile`, written atomically (a temp file beside it, then a rename); refuses with a
 * {@link BundleError} before anything is written.
 */
export async function bundleRun(
  project: ProjectRef,
  runId: string,
  outFile: string,
  options: BundleOptions = {},
): Promise<BundleSummary> {
  const target = resolve(outFile);
  if (!isRunId(runId)) throw new UnknownRunError(runId);
  return usingProject(project, async ({ store }) => {
    const folder = await readRunFolder(store, runId);
    if (folder === undefined) throw new UnknownRunError(runId);
    checkPaths(runId, folder.paths);
    // Read only: a project whose objects are gone is not given an empty .agent/objects.
    const stored = await store.openObjects({ readOnly: true });
    try {
      return await packRun(stored, runId, folder, target, options);
    } finally {
      await stored.close();
    }
  });
}

/** Checks the run's records and objects, then writes the bundle of `folder`. */
async function packRun(
  stored: ObjectStore,
  runId: RunId,
  folder: RunFolder,
  target: string,
  options: BundleOptions,
): Promise<BundleSummary> {
  const records = recordsOfRun(runId, folder.files);
  const objects = referencedObjects(records);
  // A path an import would refuse refuses the bundle: none is made that no project could import.
  await checkRecordPaths(
    runId,
    records,
    async (hash) => parseTrace(await readVerifiedObject(stored, hash)),
    `no project would import the run: correct or remove that line of ${artifactRecordsPath(runId)} and bundle again`,
  );
  await checkBundleOutput(target, options.force === true);
  // Verified before packing, so a missing or corrupt object refuses the bundle instead of shipping it.
  for (const hash of objects) await readVerifiedObject(stored, hash);

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
      bytes: () => readVerifiedObject(stored, hash),
    })),
  ];
  const bytes = await writeBundleFile(
    target,
    options.force === true,
    entries,
    // Read back before it is moved into place: exit 0 means the whole bundle is on disk.
    (temp) => checkWrittenBundle(temp, manifest),
  );
  return { file: target, runId, files: folder.files.length, objects: objects.length, bytes };
}

/**
 * Refuses a run file whose name an import would refuse, rather than writing a bundle nobody can import, and then
 * one whose name no store key spells, which the store cannot read.
 */
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
    if (!isStoreKey(path)) {
      throw new BundleError({
        code: 'unsafe_path',
        entry: path,
        message: `run file ${JSON.stringify(path)} has a name the store cannot read (letters, digits, '.', '_' and '-' only); rename it and bundle again`,
      });
    }
  }
}

async function readVerifiedObject(objects: ObjectStore, hash: string): Promise<Uint8Array> {
  const stored = await readStoredObject(objects, hash);
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
