import { errnoOf } from '../../workspace/index.js';
import type { ArtifactRecord } from '../artifact-record.js';
import { BundleError } from './bundle-error.js';
import { runDir, RUNS_DIR } from '../../project/index.js';
import { isRunBookkeeping } from './bundle-manifest.js';
import { ObjectStoreError, StoreError, storeKeyComponents } from '../../store/index.js';
import type { ObjectStore, ProjectStore, StoreEntry } from '../../store/index.js';
import { parseRecordLines } from '../store/index.js';
import type { RunId } from '../../project/index.js';

/** One regular file of a run folder, read whole. */
export interface RunFolderFile {
  /** Project-relative: `.agent/runs/<runId>/...`. */
  readonly path: string;
  readonly bytes: Uint8Array;
}

/** A run folder as bundles see it: its folders (the run folder first) and its files, in walk order. */
export interface RunFolder {
  readonly directories: readonly string[];
  readonly files: readonly RunFolderFile[];
  /**
   * Every file's path in walk order, with the entries whose name no store key can spell (`notes:1.md`, `a b`):
   * those are not read, and only a path judged bad refuses them first.
   */
  readonly paths: readonly string[];
}

/** What the store holds for one hash, read without creating anything. */
export type StoredObject =
  | { readonly status: 'ok'; readonly bytes: Uint8Array }
  | { readonly status: 'missing' }
  | { readonly status: 'corrupt'; readonly why: string };

/**
 * Reads every regular file of `.agent/runs/<runId>/` through the store (recursively, names sorted, run lock and
 * temp files left out), or returns undefined when the run folder does not exist. A symlink or special file
 * anywhere in it is a {@link BundleError} (`link_entry`, `unsupported_entry`): a bundle holds regular files only.
 */
export async function readRunFolder(store: ProjectStore, runId: RunId): Promise<RunFolder | undefined> {
  const root = runDir(runId);
  const run = (await listFolder(store, RUNS_DIR)).find((entry) => entry.name === runId);
  if (run === undefined) return undefined;
  if (run.kind === 'file') throw unsupportedEntry(root, 'is not a folder');
  const directories: string[] = [];
  const files: RunFolderFile[] = [];
  const paths: string[] = [];
  const walk = async (folder: string): Promise<void> => {
    // Listed as a folder, opened without following a link: a symlink swapped in is refused, not followed.
    const entries = await listFolder(store, folder);
    directories.push(folder);
    for (const entry of entries.sort((a, b) => compareNames(a.name, b.name))) {
      const path = `${folder}/${entry.name}`;
      if (isRunBookkeeping(path.slice(root.length + 1))) continue;
      if (!isStoreKey(path)) {
        paths.push(path);
        continue;
      }
      switch (entry.kind) {
        case 'folder':
          await walk(path);
          break;
        case 'file':
          files.push({ path, bytes: await readRegularFile(store, path) });
          paths.push(path);
          break;
        case 'other':
          throw await whatIsAt(store, path);
      }
    }
  };
  await walk(root);
  return { directories, files, paths };
}

/**
 * The run's records from its artifacts.jsonl bytes (none when the run has no such file). A truncated last
 * line (an interrupted append, which every reader skips) is allowed; any other bad line is `invalid_records`,
 * and a record of another run is `foreign_record`.
 */
export function recordsOfRun(runId: RunId, files: readonly RunFolderFile[]): ArtifactRecord[] {
  const path = `${runDir(runId)}/artifacts.jsonl`;
  const file = files.find((candidate) => candidate.path === path);
  if (file === undefined) return [];
  const read = parseRecordLines(new TextDecoder().decode(file.bytes), path);
  const problem = read.problems.find((candidate) => candidate.code !== 'truncated_line');
  if (problem !== undefined) {
    throw new BundleError({
      code: 'invalid_records',
      entry: path,
      message: `${problem.message}; a run whose records cannot be read cannot be bundled or imported whole`,
    });
  }
  const foreign = read.records.find((record) => record.runId !== runId);
  if (foreign !== undefined) {
    throw new BundleError({
      code: 'foreign_record',
      entry: path,
      message: `${path} holds record ${foreign.artifactId} of run ${foreign.runId}, not ${runId}; a run's records must all belong to it`,
    });
  }
  return [...read.records];
}

/** Every distinct content hash the records reference, sorted, so a bundle's layout does not depend on record order. */
export function referencedObjects(records: readonly ArtifactRecord[]): string[] {
  return [...new Set(records.map((record) => record.contentHash))].sort();
}

/** Reads and re-hashes one object through the store's objects (opened read only: nothing is created). */
export async function readStoredObject(objects: ObjectStore, hash: string): Promise<StoredObject> {
  try {
    return { status: 'ok', bytes: await objects.get(hash) };
  } catch (error) {
    if (error instanceof ObjectStoreError) {
      if (error.code === 'missing_object') return { status: 'missing' };
      if (error.code === 'corrupt_object')
        return { status: 'corrupt', why: `its bytes hash to ${error.actual ?? 'another hash'}` };
      throw error;
    }
    // The files store opens an object without following a link (ELOOP) and reads what is there.
    const errno = errnoOf(error);
    if (errno === 'ENOTDIR') return { status: 'missing' };
    if (errno === 'ELOOP') return { status: 'corrupt', why: 'it is a symlink' };
    if (errno === 'EISDIR') return { status: 'corrupt', why: 'it is not a regular file' };
    throw error;
  }
}

/** Byte order of UTF-16 code units: the same order on every platform and locale. */
export function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Whether `path` is a key the store can name (a plain name in each component). */
export function isStoreKey(path: string): boolean {
  try {
    storeKeyComponents(path);
    return true;
  } catch (error) {
    if (error instanceof StoreError) return false;
    throw error;
  }
}

/** The entries of `folder`; a folder the store will not read through (a symlink, a file) is a refusal. */
async function listFolder(store: ProjectStore, folder: string): Promise<StoreEntry[]> {
  try {
    return await store.list(folder);
  } catch (error) {
    throw refusalOf(folder, error, 'is not a folder');
  }
}

async function readRegularFile(store: ProjectStore, path: string): Promise<Uint8Array> {
  let bytes;
  try {
    bytes = await store.read(path);
  } catch (error) {
    // The entry was a file when listed: a symlink swapped in since then is refused, never followed.
    throw refusalOf(path, error, 'is not a regular file');
  }
  if (bytes === undefined) throw unsupportedEntry(path, 'was removed while the run folder was read');
  return bytes;
}

/** The refusal of an entry listed as neither a file nor a folder: a symlink, or a FIFO, socket or device. */
async function whatIsAt(store: ProjectStore, path: string): Promise<BundleError> {
  const special = 'is a special file (a FIFO, socket or device)';
  try {
    await store.info(path);
  } catch (error) {
    return refusalOf(path, error, special);
  }
  return unsupportedEntry(path, special);
}

/** The bundle's word for a store refusal at `path`; any other error is rethrown as it is. */
function refusalOf(path: string, error: unknown, what: string): BundleError {
  if (!(error instanceof StoreError) || (error.code !== 'not_a_file' && error.code !== 'write_refused'))
    throw error;
  if (error.refusal === 'symlink') return linkEntry(path);
  if (error.refusal === 'hard_link')
    return unsupportedEntry(path, 'is a file with more than one name (a hard link)');
  return unsupportedEntry(path, what);
}

function linkEntry(path: string): BundleError {
  return new BundleError({
    code: 'link_entry',
    entry: path,
    message: `${path} is a symlink; a run folder holds regular files only, so remove the link (or replace it with the file) and bundle again`,
  });
}

function unsupportedEntry(path: string, what: string): BundleError {
  return new BundleError({
    code: 'unsupported_entry',
    entry: path,
    message: `${path} ${what}; a run folder holds regular files and folders only, so remove it and bundle again`,
  });
}
