import { Buffer } from 'node:buffer';
import { constants } from 'node:fs';
import { lstat, open } from 'node:fs/promises';
import type { BigIntStats } from 'node:fs';
import type { DirectoryHandle } from './directory-handle.js';
import { errnoOf } from './errno-of.js';
import { withWorkspaceError, workspaceErrorFrom } from './workspace-error.js';
import type { FilesystemRefusalCode } from './write-outcome.js';

/** What the target entry holds compared with the bytes about to be written. */
export type TargetState =
  | { readonly kind: 'absent' }
  | { readonly kind: 'same' }
  | { readonly kind: 'different' }
  | { readonly kind: 'refused'; readonly code: FilesystemRefusalCode };

// O_NONBLOCK: should the file be swapped for a FIFO after lstat, opening it must not hang.
const READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** Judges the entry `name` in `directory` by lstat(2); only a regular file is ever opened, to compare bytes. */
export async function inspectTarget(
  directory: DirectoryHandle,
  name: string,
  bytes: Uint8Array,
  shownAs: string,
): Promise<TargetState> {
  const entry = directory.entry(name);
  let stats: BigIntStats;
  try {
    stats = await lstat(entry, { bigint: true });
  } catch (error) {
    if (errnoOf(error) === 'ENOENT') return { kind: 'absent' };
    throw workspaceErrorFrom(error, 'lstat', shownAs);
  }
  // A dangling symlink is refused too: following it would create a file wherever it points.
  if (stats.isSymbolicLink()) return { kind: 'refused', code: 'symlink' };
  if (stats.isDirectory()) return { kind: 'refused', code: 'is_a_directory' };
  if (!stats.isFile()) return { kind: 'refused', code: 'not_a_regular_file' };
  if (stats.size !== BigInt(bytes.byteLength)) return { kind: 'different' };
  return (await holdsBytes(entry, stats, bytes, shownAs)) ? { kind: 'same' } : { kind: 'different' };
}

async function holdsBytes(
  entry: string,
  seen: BigIntStats,
  bytes: Uint8Array,
  shownAs: string,
): Promise<boolean> {
  let handle;
  try {
    handle = await open(entry, READ_FLAGS);
  } catch (error) {
    // Swapped or removed since lstat: not provably the same, and the rename replaces whatever entry is there.
    if (['ELOOP', 'ENOENT', 'ENXIO'].includes(errnoOf(error) ?? '')) return false;
    throw workspaceErrorFrom(error, 'open', shownAs);
  }
  try {
    const opened = await withWorkspaceError('fstat', shownAs, () => handle.stat({ bigint: true }));
    if (!opened.isFile() || opened.ino !== seen.ino || opened.dev !== seen.dev) return false;
    const content = await withWorkspaceError('read', shownAs, () => handle.readFile());
    return content.equals(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  } finally {
    await handle.close();
  }
}
