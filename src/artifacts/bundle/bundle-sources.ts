import { constants } from 'node:fs';
import { lstat, open, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { errnoOf } from '../../workspace/index.js';
import type { ArtifactRecord } from '../artifact-record.js';
import { BundleError } from './bundle-error.js';
import { objectPath, runDir } from '../../project/index.js';
import { isRunBookkeeping } from './bundle-manifest.js';
import { contentHashOf, hexOfContentHash } from '../../store/index.js';
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
}

/** What the store holds for one hash, read without creating anything. */
export type StoredObject =
  | { readonly status: 'ok'; readonly bytes: Uint8Array }
  | { readonly status: 'missing' }
  | { readonly status: 'corrupt'; readonly why: string };

// O_NONBLOCK: opening a FIFO planted in place of a file must not hang; O_NOFOLLOW: a symlink is never followed.
const READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/**
 * Reads every regular file of `.agent/runs/<runId>/` (recursively, names sorted, run lock and temp files left
 * out), or returns undefined when the run folder does not exist. A symlink or special file anywhere in it
 * is a {@link BundleError} (`link_entry`, `unsupported_entry`): a bundle holds regular files only.
 */
export async function readRunFolder(projectDir: string, runId: RunId): Promise<RunFolder | undefined> {
  const root = runDir(runId);
  let info;
  try {
    info = await lstat(join(projectDir, root));
  } catch (error) {
    if (errnoOf(error) === 'ENOENT' || errnoOf(error) === 'ENOTDIR') return undefined;
    throw error;
  }
  if (info.isSymbolicLink()) throw linkEntry(root);
  if (!info.isDirectory()) throw unsupportedEntry(root, 'is not a folder');
  const directories: string[] = [];
  const files: RunFolderFile[] = [];
  const walk = async (folder: string): Promise<void> => {
    // Listed as a folder, checked again right before reading it: a symlink swapped in is refused, not followed.
    if (folder !== root && (await lstat(join(projectDir, folder))).isSymbolicLink()) throw linkEntry(folder);
    directories.push(folder);
    const entries = await readdir(join(projectDir, folder), { withFileTypes: true });
    for (const entry of entries.sort((a, b) => compareNames(a.name, b.name))) {
      const path = `${folder}/${entry.name}`;
      if (isRunBookkeeping(path.slice(root.length + 1))) continue;
      if (entry.isDirectory()) await walk(path);
      else if (entry.isFile()) files.push({ path, bytes: await readRegularFile(projectDir, path) });
      else if (entry.isSymbolicLink()) throw linkEntry(path);
      else throw unsupportedEntry(path, 'is a special file (a FIFO, socket or device)');
    }
  };
  await walk(root);
  return { directories, files };
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

/** Reads and re-hashes one object straight from `.agent/objects` (never creating the store). */
export async function readStoredObject(projectDir: string, hash: string): Promise<StoredObject> {
  const hex = hexOfContentHash(hash);
  if (hex === undefined) throw new Error(`content hash ${JSON.stringify(hash)} is malformed`);
  let handle;
  try {
    handle = await open(join(projectDir, objectPath(hex)), READ_FLAGS);
  } catch (error) {
    const code = errnoOf(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') return { status: 'missing' };
    if (code === 'ELOOP') return { status: 'corrupt', why: 'it is a symlink' };
    throw error;
  }
  try {
    if (!(await handle.stat()).isFile()) return { status: 'corrupt', why: 'it is not a regular file' };
    const bytes = await handle.readFile();
    const actual = contentHashOf(bytes);
    return actual === hash
      ? { status: 'ok', bytes }
      : { status: 'corrupt', why: `its bytes hash to ${actual}` };
  } finally {
    await handle.close();
  }
}

/** Byte order of UTF-16 code units: the same order on every platform and locale. */
export function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

async function readRegularFile(projectDir: string, path: string): Promise<Uint8Array> {
  let handle;
  try {
    handle = await open(join(projectDir, path), READ_FLAGS);
  } catch (error) {
    // The entry was a file when listed: a symlink swapped in since then is refused, never followed.
    if (errnoOf(error) === 'ELOOP') throw linkEntry(path);
    throw error;
  }
  try {
    if (!(await handle.stat()).isFile()) throw unsupportedEntry(path, 'is not a regular file');
    return await handle.readFile();
  } finally {
    await handle.close();
  }
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
