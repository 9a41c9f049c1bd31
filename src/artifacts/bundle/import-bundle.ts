import { resolve } from 'node:path';
import type { ArtifactRecord } from '../artifact-record.js';
import { appendToIndex, appendToRunIndexes, isVersionRecord, readPathVersions } from '../store/index.js';
import { BundleError } from './bundle-error.js';
import { AGENT_DIR, artifactRecordsPath, runDir, RUNS_DIR, sha256Hex } from '../../project/index.js';
import type { BundleManifest } from './bundle-manifest.js';
import { readRunFolder, readStoredObject, recordsOfRun, referencedObjects } from './bundle-sources.js';
import type { RunFolder } from './bundle-sources.js';
import { ObjectStoreError, StoreError, usingProject } from '../../store/index.js';
import type { FolderDraft, ObjectStore, Project, ProjectRef, ProjectStore } from '../../store/index.js';
import { parseTrace, readBundleArchive } from './read-bundle-archive.js';
import { checkRecordPaths } from './check-record-paths.js';
import type { BundleArchive } from './read-bundle-archive.js';
import { DEFAULT_BUNDLE_LIMITS, scanBundleArchive } from './scan-bundle-archive.js';
import type { BundleLimits } from './scan-types.js';

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
 * Imports a bundle made by `bundleRun` into `project` (a folder, or a {@link Project} on any store) in two
 * streaming passes: the first checks the whole archive (paths, types, header sizes against the limits, manifest,
 * hashes, records, the project's existing run) keeping only digests; only when everything checks out, the second
 * reads it again, one entry at a time, re-checking each, storing its objects and writing the run aside, then
 * putting it in place whole (`createFolder`); then the run's versions are added to the path index. A refusal is a
 * {@link BundleError} and leaves the project untouched.
 */
export async function importBundle(
  project: ProjectRef,
  bundleFile: string,
  options: ImportOptions = {},
): Promise<ImportSummary> {
  return usingProject(project, (opened) => importInto(opened, bundleFile, options));
}

async function importInto(
  project: Project,
  bundleFile: string,
  options: ImportOptions,
): Promise<ImportSummary> {
  const { store } = project;
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
  // Read only: the checks create nothing, so a refused import leaves a project without objects as it was.
  const present = await store.openObjects({ readOnly: true });
  try {
    await checkObjects(present, archive, referencedObjects(records));
    await checkRecordPaths(
      manifest.runId,
      records,
      async (hash) => {
        if (archive.objects.has(hash)) return archive.traces.get(hash);
        // Not in the bundle: checkObjects found it intact in this project's store.
        const stored = await readStoredObject(present, hash);
        return stored.status === 'ok' ? parseTrace(stored.bytes) : undefined;
      },
      'the bundle was made or changed by hand: nothing was imported',
    );
  } finally {
    await present.close();
  }
  await checkProjectFolders(store);
  const alreadyImported = await isAlreadyImported(store, manifest);

  const objectsStored = await writeBundle(store, file, limits, archive, alreadyImported);
  await indexMissingVersions(project, records);
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
  present: ObjectStore,
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
    const stored = await readStoredObject(present, hash);
    if (stored.status !== 'ok') {
      throw new BundleError({
        code: 'missing_object',
        entry: hash,
        message: `object ${hash}, referenced by the run's records, is neither in the bundle nor ${stored.status === 'missing' ? 'in' : 'intact in'} this project's store; bundle the run again from a project that has it`,
      });
    }
  }
}

/** `.agent` and `.agent/runs` must be real folders (or absent): the run is put in place there. */
async function checkProjectFolders(store: ProjectStore): Promise<void> {
  for (const folder of [AGENT_DIR, RUNS_DIR]) {
    try {
      await store.list(folder);
    } catch (error) {
      if (!(error instanceof StoreError) || error.code !== 'not_a_file') throw error;
      throw new BundleError({
        code: 'project_unusable',
        entry: folder,
        message: `${folder} is ${error.refusal === 'symlink' ? 'a symlink' : 'not a folder'}; runs are imported into a real ${folder} folder only, so replace it with one`,
        cause: error,
      });
    }
  }
}

/** Whether the run is already here with exactly the bundle's files; refuses `run_exists` when it differs. */
async function isAlreadyImported(store: ProjectStore, manifest: BundleManifest): Promise<boolean> {
  const runFolder = runDir(manifest.runId);
  let existing: RunFolder | undefined;
  try {
    existing = await readRunFolder(store, manifest.runId);
  } catch (error) {
    if (!(error instanceof BundleError)) throw error;
    throw runExists(runFolder, `holds something a run folder may not (${error.message})`);
  }
  if (existing === undefined) return false;
  const wanted = new Map(manifest.files.map((file) => [file.path, file.sha256]));
  const have = new Map(existing.files.map((file) => [file.path, sha256Hex(file.bytes)]));
  // A file no store key names was not read: it is no file of the bundle's run, so the runs differ.
  const differing =
    existing.paths.find((path) => !have.has(path) || wanted.get(path) !== have.get(path)) ??
    manifest.files.find((file) => !have.has(file.path))?.path;
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
 * here, writes each run file aside and then puts the run folder in place whole (`createFolder`; the files store
 * renames a staging folder beside `.agent/runs/<runId>`): other readers see no run or the whole run, never half of
 * one. Returns how many objects were new to the store.
 */
async function writeBundle(
  store: ProjectStore,
  bundleFile: string,
  limits: BundleLimits,
  archive: BundleArchive,
  alreadyImported: boolean,
): Promise<number> {
  const { runId } = archive.manifest;
  const runFolder = runDir(runId);
  const objects = archive.objects.size === 0 ? undefined : await store.openObjects();
  let stored = 0;
  /** Streams the archive's objects into the store and, given a draft, its run files into the draft. */
  const copy = async (draft: FolderDraft | undefined): Promise<void> => {
    const written = new Set<string>();
    for (const folder of draft === undefined ? [] : archive.runDirectories) {
      if (folder !== runFolder) await draft?.makeFolder(folder);
    }
    await scanBundleArchive(bundleFile, limits, {
      keep: () => false,
      // Each body goes from the archive to the store chunk by chunk, hashed on the way (memory: one chunk).
      stream: (verdict) => {
        if (verdict.kind === 'object') {
          if (!archive.objects.has(verdict.hash)) throw changedMeanwhile(verdict.path);
          if (objects === undefined) return undefined;
          return async (body) => {
            if ((await putObject(objects, verdict.hash, verdict.path, body)).stored) stored += 1;
          };
        }
        const expected = archive.runFiles.get(verdict.path)?.sha256;
        if (draft === undefined || expected === undefined) return undefined;
        return async (body) => {
          if (!(await draft.writeStream(verdict.path, body, expected))) throw changedMeanwhile(verdict.path);
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
    if (draft === undefined) return;
    const lost = [...archive.runFiles.keys()].find((path) => !written.has(path));
    if (lost !== undefined) throw changedMeanwhile(lost);
  };
  try {
    if (alreadyImported) {
      await copy(undefined);
      return stored;
    }
    let created;
    try {
      created = await store.createFolder(runFolder, copy);
    } catch (error) {
      // The run folder could not be made or put in place there (a symlink or a file in the way).
      if (error instanceof StoreError && error.code === 'write_refused' && error.key === runFolder)
        throw projectUnusable(runFolder, error.message);
      throw error;
    }
    // Another import (or a run) created the folder since it was checked.
    if (created.status === 'exists') throw runExists(runFolder, 'appeared while this import was running');
  } finally {
    await objects?.close();
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
async function indexMissingVersions(project: Project, records: readonly ArtifactRecord[]): Promise<void> {
  const byPath = new Map<string, ArtifactRecord[]>();
  for (const record of records.filter(isVersionRecord)) {
    byPath.set(record.path, [...(byPath.get(record.path) ?? []), record]);
  }
  const missing: ArtifactRecord[] = [];
  for (const [path, versions] of byPath) {
    const indexed = new Map<string, number>();
    for (const record of (await readPathVersions(project, path)).records) {
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
    project,
    records.filter((record) => missingSet.has(record)),
  );
  // The run indexes get the same versions (and the traces, so the run's first line is among them).
  if (missing.length > 0)
    await appendToRunIndexes(
      project,
      records.filter((record) => !isVersionRecord(record) || missingSet.has(record)),
    );
}
