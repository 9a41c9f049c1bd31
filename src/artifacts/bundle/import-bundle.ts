import { lstat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { errnoOf, openConfinedRoot } from '../../workspace/index.js';
import type { ArtifactRecord } from '../artifact-record.js';
import { appendToIndex, appendToRunIndexes, isVersionRecord, readPathVersions } from '../store/index.js';
import { BundleError } from './bundle-error.js';
import { AGENT_DIR, artifactRecordsPath, runDir, RUNS_DIR, sha256Hex } from '../../project/index.js';
import type { BundleManifest } from './bundle-manifest.js';
import { readRunFolder, readStoredObject, recordsOfRun, referencedObjects } from './bundle-sources.js';
import type { RunFolder } from './bundle-sources.js';
import { ObjectStoreError, openObjectStore } from '../store/index.js';
import type { ObjectStore } from '../store/index.js';
import { parseTrace, readBundleArchive } from './read-bundle-archive.js';
import { checkRecordPaths } from './check-record-paths.js';
import type { BundleArchive } from './read-bundle-archive.js';
import { DEFAULT_BUNDLE_LIMITS, scanBundleArchive } from './scan-bundle-archive.js';
import type { BundleLimits } from './scan-bundle-archive.js';

/** Options of {@link importBundle}: how far a bundle may expand (defaults in {@link DEFAULT_BUNDLE_LIMITS}). */
export interface ImportOptions {
  /** Most bytes of all entries together, and of the uncompressed tar; default 1 GiB. */
  readonly maxBytes?: number;
  /** Most bytes of one run file; default 64 MiB. */
  readonly maxFileBytes?: number;
  /** Most bytes of one object; default 16 MiB (the ingest's max_document_bytes). */
  readonly maxObjectBytes?: number;
}

/** What {@link importBundle} did. */
export interface ImportSummary {
  readonly runId: string;
  /** Run files in the bundle. */
  readonly files: number;
  /** Objects the run references. */
  readonly objects: number;
  /** Objects this import wrote (new to this project's store). */
  readonly objectsStored: number;
  /** True when the run was already here with identical files: no run file was written. */
  readonly alreadyImported: boolean;
}

/**
 * Imports a bundle made by `bundleRun` in two streaming passes: the first checks the whole archive (paths,
 * types, header sizes against the limits, manifest, hashes, records, the project's existing run) keeping only
 * digests; only when everything checks out, the second reads it again, one entry at a time, re-checking each,
 * storing its objects and writing the run into a staging folder that is then renamed into place; then the run's
 * versions are added to the path index. A refusal is a {@link BundleError} and leaves the project untouched.
 */
export async function importBundle(
  projectDir: string,
  bundleFile: string,
  options: ImportOptions = {},
): Promise<ImportSummary> {
  const file = resolve(bundleFile);
  const limits: BundleLimits = {
    maxBytes: options.maxBytes ?? DEFAULT_BUNDLE_LIMITS.maxBytes,
    maxFileBytes: options.maxFileBytes ?? DEFAULT_BUNDLE_LIMITS.maxFileBytes,
    maxObjectBytes: options.maxObjectBytes ?? DEFAULT_BUNDLE_LIMITS.maxObjectBytes,
  };
  const archive = await readBundleArchive(file, limits);
  const { manifest } = archive;
  checkRunFiles(archive);
  const records = recordsOfRun(
    manifest.runId,
    archive.records === undefined
      ? []
      : [{ path: artifactRecordsPath(manifest.runId), bytes: archive.records }],
  );
  await checkObjects(projectDir, archive, referencedObjects(records));
  await checkRecordPaths(
    manifest.runId,
    records,
    async (hash) => {
      if (archive.objects.has(hash)) return archive.traces.get(hash);
      // Not in the bundle: checkObjects found it intact in this project's store.
      const stored = await readStoredObject(projectDir, hash);
      return stored.status === 'ok' ? parseTrace(stored.bytes) : undefined;
    },
    'the bundle was made or changed by hand: nothing was imported',
  );
  await checkProjectFolders(projectDir);
  const alreadyImported = await isAlreadyImported(projectDir, manifest);

  const objectsStored = await writeBundle(projectDir, file, limits, archive, alreadyImported);
  await indexMissingVersions(projectDir, records);
  return {
    runId: manifest.runId,
    files: manifest.files.length,
    objects: manifest.objects.length,
    objectsStored,
    alreadyImported,
  };
}

/** Every run file is listed in the manifest with its exact hash and size, and every listed file is there. */
function checkRunFiles(archive: BundleArchive): void {
  const listed = new Map(archive.manifest.files.map((file) => [file.path, file]));
  for (const [path, { sha256, bytes }] of archive.runFiles) {
    const file = listed.get(path);
    if (file === undefined) {
      throw new BundleError({
        code: 'unlisted_entry',
        entry: path,
        message: `run file ${path} is not listed in the bundle's manifest; the bundle was changed after it was made, so get a fresh copy`,
      });
    }
    if (sha256 !== file.sha256 || bytes !== file.bytes) {
      throw new BundleError({
        code: 'hash_mismatch',
        entry: path,
        message: `run file ${path} (${String(bytes)} bytes, sha256 ${sha256}) does not match the manifest (${file.bytes} bytes, sha256 ${file.sha256}); the bundle is damaged or tampered with, so get a fresh copy`,
      });
    }
  }
  for (const file of archive.manifest.files) {
    if (!archive.runFiles.has(file.path)) {
      throw new BundleError({
        code: 'missing_file',
        entry: file.path,
        message: `the manifest lists ${file.path}, but the bundle does not hold it; the bundle is incomplete, so get a fresh copy`,
      });
    }
  }
}

/** The manifest lists exactly the objects the records reference; each is in the bundle or intact in the store. */
async function checkObjects(
  projectDir: string,
  archive: BundleArchive,
  referenced: readonly string[],
): Promise<void> {
  const listed = new Set(archive.manifest.objects);
  for (const hash of archive.objects) {
    if (!listed.has(hash)) {
      throw new BundleError({
        code: 'unlisted_entry',
        entry: hash,
        message: `object ${hash} is in the bundle but not listed in its manifest; the bundle was changed after it was made, so get a fresh copy`,
      });
    }
  }
  const mismatch =
    referenced.find((hash) => !listed.has(hash)) ??
    archive.manifest.objects.find((hash) => !referenced.includes(hash));
  if (mismatch !== undefined || referenced.length !== listed.size) {
    throw new BundleError({
      code: 'invalid_manifest',
      ...(mismatch === undefined ? {} : { entry: mismatch }),
      message: `the manifest's objects differ from those the run's records reference (first: ${mismatch ?? 'a duplicate'}); make the bundle again with 'artifact-ingest bundle'`,
    });
  }
  for (const hash of referenced) {
    if (archive.objects.has(hash)) continue;
    const stored = await readStoredObject(projectDir, hash);
    if (stored.status !== 'ok') {
      throw new BundleError({
        code: 'missing_object',
        entry: hash,
        message: `object ${hash}, referenced by the run's records, is neither in the bundle nor ${stored.status === 'missing' ? 'in' : 'intact in'} this project's store; bundle the run again from a project that has it`,
      });
    }
  }
}

/** `.agent` and `.agent/runs` must be real folders (or absent): the run is moved into place there. */
async function checkProjectFolders(projectDir: string): Promise<void> {
  for (const folder of [AGENT_DIR, RUNS_DIR]) {
    let info;
    try {
      info = await lstat(join(projectDir, folder));
    } catch (error) {
      if (errnoOf(error) === 'ENOENT') return;
      throw error;
    }
    if (!info.isDirectory()) {
      throw new BundleError({
        code: 'project_unusable',
        entry: folder,
        message: `${folder} is ${info.isSymbolicLink() ? 'a symlink' : 'not a folder'}; runs are imported into a real ${folder} folder only, so replace it with one`,
      });
    }
  }
}

/** Whether the run is already here with exactly the bundle's files; refuses `run_exists` when it differs. */
async function isAlreadyImported(projectDir: string, manifest: BundleManifest): Promise<boolean> {
  const runFolder = runDir(manifest.runId);
  let existing: RunFolder | undefined;
  try {
    existing = await readRunFolder(projectDir, manifest.runId);
  } catch (error) {
    if (!(error instanceof BundleError)) throw error;
    throw runExists(runFolder, `holds something a run folder may not (${error.message})`);
  }
  if (existing === undefined) return false;
  const wanted = new Map(manifest.files.map((file) => [file.path, file.sha256]));
  const differing =
    existing.files.find((file) => wanted.get(file.path) !== sha256Hex(file.bytes))?.path ??
    manifest.files.find((file) => !existing.files.some((have) => have.path === file.path))?.path;
  if (differing !== undefined) throw runExists(runFolder, `differs from the bundle's run at ${differing}`);
  return true;
}

function runExists(runFolder: string, why: string): BundleError {
  return new BundleError({
    code: 'run_exists',
    entry: runFolder,
    message: `${runFolder} already exists and ${why}; import into another project, or move that run folder away first`,
  });
}

/**
 * The second pass: reads the archive again, one entry at a time, re-checking each against the first pass; puts
 * each object into the store (identical content already there is left alone) and, unless the run is already
 * here, writes each run file into a staging folder beside `.agent/runs/<runId>` through the workspace writer,
 * then renames that folder into place: other readers see no run or the whole run, never half of one. Returns
 * how many objects were new to the store.
 */
async function writeBundle(
  projectDir: string,
  bundleFile: string,
  limits: BundleLimits,
  archive: BundleArchive,
  alreadyImported: boolean,
): Promise<number> {
  const { runId } = archive.manifest;
  const runFolder = runDir(runId);
  const store = archive.objects.size === 0 ? undefined : await openObjectStore(projectDir);
  const root = alreadyImported ? undefined : await openConfinedRoot(projectDir, { create: true });
  let stored = 0;
  try {
    // The staging folder's name starts with '.', which keeps it out of listRecordedRuns (run ids only).
    const staging = root === undefined ? undefined : await root.stage(runFolder);
    if (staging !== undefined && 'status' in staging) throw projectUnusable(runFolder, staging.message);
    try {
      for (const folder of staging === undefined ? [] : archive.runDirectories) {
        if (folder === runFolder) continue;
        const made = await staging?.files.makeDirectory(folder.slice(runFolder.length + 1));
        if (made?.status === 'refused') throw new Error(`cannot create ${folder}: ${made.message}`);
      }
      const written = new Set<string>();
      await scanBundleArchive(bundleFile, limits, {
        keep: () => false,
        // Each body goes from the archive to its temp file chunk by chunk, hashed on the way (memory: one chunk).
        stream: (verdict) => {
          if (verdict.kind === 'object') {
            if (!archive.objects.has(verdict.hash)) throw changedMeanwhile(verdict.path);
            if (store === undefined) return undefined;
            return async (body) => {
              if ((await putObject(store, verdict.hash, verdict.path, body)).stored) stored += 1;
            };
          }
          const expected = archive.runFiles.get(verdict.path)?.sha256;
          if (staging === undefined || expected === undefined) return undefined;
          return async (body) => {
            const relative = verdict.path.slice(runFolder.length + 1);
            const outcome = await staging.files.writeStream(relative, body, { expectedSha256: expected });
            if (outcome.status === 'hash_mismatch') throw changedMeanwhile(verdict.path);
            if (outcome.status === 'refused')
              throw new Error(`cannot write ${verdict.path}: ${outcome.message}`);
            written.add(verdict.path);
          };
        },
        onFile: ({ verdict, sha256 }) => {
          if (verdict.kind === 'object') {
            if (!archive.objects.has(verdict.hash)) throw changedMeanwhile(verdict.path);
            return;
          }
          if (archive.runFiles.get(verdict.path)?.sha256 !== sha256) throw changedMeanwhile(verdict.path);
        },
      });
      if (staging === undefined) return stored;
      const lost = [...archive.runFiles.keys()].find((path) => !written.has(path));
      if (lost !== undefined) throw changedMeanwhile(lost);
      const published = await staging.publish();
      // Another import (or a run) created the folder since it was checked.
      if (published.status === 'exists') throw runExists(runFolder, 'appeared while this import was running');
      if (published.status === 'refused') throw projectUnusable(runFolder, published.message);
    } finally {
      if (staging !== undefined) await staging.discard();
    }
  } finally {
    await root?.close();
    await store?.close();
  }
  return stored;
}

/** Streams one object into the store; bytes that do not hash to its name (a changed bundle) store nothing. */
async function putObject(
  store: ObjectStore,
  hash: string,
  entry: string,
  body: AsyncIterable<Buffer>,
): Promise<{ readonly stored: boolean }> {
  try {
    return await store.putStream(hash, body);
  } catch (error) {
    if (error instanceof ObjectStoreError && error.code === 'corrupt_object') throw changedMeanwhile(entry);
    throw error;
  }
}

/** The bundle file differs from what the first pass checked: it was replaced or changed during the import. */
function changedMeanwhile(entry: string): BundleError {
  return new BundleError({
    code: 'hash_mismatch',
    entry,
    message: `${entry} differs from what this import checked a moment before: the bundle file changed while it was imported; import it again once nothing writes to it`,
  });
}

function projectUnusable(entry: string, why: string): BundleError {
  return new BundleError({
    code: 'project_unusable',
    entry,
    message: `${why}; runs are imported into real folders only, so replace it with one`,
  });
}

/**
 * Appends to the path index (and the run indexes) the run's versions it does not hold yet: all of them on a
 * first import, and after an import interrupted between the rename and the index, the ones it missed.
 */
async function indexMissingVersions(projectDir: string, records: readonly ArtifactRecord[]): Promise<void> {
  const byPath = new Map<string, ArtifactRecord[]>();
  for (const record of records.filter(isVersionRecord)) {
    byPath.set(record.path, [...(byPath.get(record.path) ?? []), record]);
  }
  const missing: ArtifactRecord[] = [];
  for (const [path, versions] of byPath) {
    const indexed = new Map<string, number>();
    for (const record of (await readPathVersions(projectDir, path)).records) {
      indexed.set(record.artifactId, (indexed.get(record.artifactId) ?? 0) + 1);
    }
    // A run can record the same id twice (content A, then B, then A again): compare counts, not presence.
    for (const record of versions) {
      const left = indexed.get(record.artifactId) ?? 0;
      if (left > 0) indexed.set(record.artifactId, left - 1);
      else missing.push(record);
    }
  }
  const missingSet = new Set(missing);
  await appendToIndex(
    projectDir,
    records.filter((record) => missingSet.has(record)),
  );
  // The run indexes get the same versions (and the traces, so the run's first line is among them).
  if (missing.length > 0)
    await appendToRunIndexes(
      projectDir,
      records.filter((record) => !isVersionRecord(record) || missingSet.has(record)),
    );
}
