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
  // Listed as a folder, opened without following a link: a symlink swapped in is refused, not followed.
  for await (const entry of runFolderEntries(root, (folder) => listFolder(store, folder))) {
    switch (entry.kind) {
      case 'folder':
        directories.push(entry.path);
        break;
      case 'unnamed':
        paths.push(entry.path);
        break;
      case 'file':
        files.push({ path: entry.path, bytes: await readRegularFile(store, entry.path) });
        paths.push(entry.path);
        break;
      case 'other':
        throw await whatIsAt(store, entry.path);
    }
  }
  return { directories, files, paths };
}

/** An entry met walking a run's folder; `unnamed`: its name no store key can spell (neither read nor entered). */
export interface RunFolderEntry {
  readonly path: string;
  readonly kind: 'folder' | 'file' | 'other' | 'unnamed';
}

/**
 * Walks folder `root` (a run's folder, or its contract artifacts) depth first, names sorted, bookkeeping (the run
 * lock, temp files) left out: each folder once `list` has listed it, then its entries. Each caller words its own
 * refusal of an `other` entry (a symlink, a FIFO) and of a folder `list` will not read.
 */
export function runFolderEntries(
  root: string,
  list: (folder: string) => Promise<readonly StoreEntry[]>,
): AsyncGenerator<RunFolderEntry> {
  return folderEntries(root, root, list);
}

async function* folderEntries(
  root: string,
  folder: string,
  list: (folder: string) => Promise<readonly StoreEntry[]>,
): AsyncGenerator<RunFolderEntry> {
  const entries = await list(folder);
  yield { path: folder, kind: 'folder' };
  for (const entry of [...entries].sort((a, b) => compareNames(a.name, b.name))) {
    const path = `${folder}/${entry.name}`;
    if (isRunBookkeeping(path.slice(root.length + 1))) continue;
    if (!isStoreKey(path)) yield { path, kind: 'unnamed' };
    else if (entry.kind === 'folder') yield* folderEntries(root, path, list);
    else yield { path, kind: entry.kind };
  }
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
  const read = readRunRecords(runId, path, new TextDecoder().decode(file.bytes));
  if (read.status === 'ok') return read.records;
  throw new BundleError({
    code: read.status,
    entry: path,
    message: `${read.message}; ${RECORDS_REFUSAL[read.status]}`,
  });
}

/** What a bundle or an import says of a run whose records are not all its own, readable records. */
const RECORDS_REFUSAL = {
  invalid_records: 'a run whose records cannot be read cannot be bundled or imported whole',
  foreign_record: "a run's records must all belong to it",
} as const;

/** A run's records, or what keeps them from being its records (`message`: for each caller to word its refusal). */
export type RunRecordsRead =
  | { readonly status: 'ok'; readonly records: ArtifactRecord[] }
  /** A line other than a truncated last one is bad. */
  | { readonly status: 'invalid_records'; readonly message: string }
  /** A record belongs to another run. */
  | { readonly status: 'foreign_record'; readonly message: string };

/**
 * The records of run `runId` in `text`, its artifacts.jsonl at `path`: a truncated last line (an interrupted
 * append, which every reader skips) is allowed; any other bad line, or a record of another run, is the problem.
 */
export function readRunRecords(runId: RunId, path: string, text: string): RunRecordsRead {
  const read = parseRecordLines(text, path);
  const problem = read.problems.find((candidate) => candidate.code !== 'truncated_line');
  if (problem !== undefined) return { status: 'invalid_records', message: problem.message };
  const foreign = read.records.find((record) => record.runId !== runId);
  if (foreign !== undefined) {
    return {
      status: 'foreign_record',
      message: `${path} holds record ${foreign.artifactId} of run ${foreign.runId}, not ${runId}`,
    };
  }
  return { status: 'ok', records: [...read.records] };
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
