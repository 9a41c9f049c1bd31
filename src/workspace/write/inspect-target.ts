import { Buffer } from 'node:buffer';
import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { lstat, open } from '../quick-fs.js';
import type { QuickHandle } from '../quick-fs.js';
import type { BigIntStats } from 'node:fs';
import type { DirectoryHandle } from '../walk/index.js';
import { errnoOf } from '../errno-of.js';
import { withWorkspaceError, workspaceErrorFrom } from '../workspace-error.js';
import type { FilesystemRefusalCode } from '../write-outcome.js';

/** What the target entry holds compared with the bytes about to be written. */
export type TargetState =
  | { readonly kind: 'absent' }
  | { readonly kind: 'same' }
  /** `sha256`: what the file holds, when the caller asked for it (`digest`). */
  | { readonly kind: 'different'; readonly sha256?: string }
  | { readonly kind: 'refused'; readonly code: FilesystemRefusalCode };

/** What a streamed file holds, known only by its sha256 (hex) and size. */
export interface ContentDigest {
  readonly sha256: string;
  readonly size: number;
}

// O_NONBLOCK: should the file be swapped for a FIFO after lstat, opening it must not hang.
const READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/**
 * Judges the entry `name` in `directory` by lstat(2); only a regular file is ever opened, to compare bytes (and,
 * with `digest`, to hash a regular file that holds other bytes).
 */
export async function inspectTarget(
  directory: DirectoryHandle,
  name: string,
  content: Uint8Array | ContentDigest,
  shownAs: string,
  digest = false,
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
  const size = content instanceof Uint8Array ? content.byteLength : content.size;
  if (stats.size !== BigInt(size) && !digest) return { kind: 'different' };
  return compareContent(entry, stats, content, shownAs, digest);
}

/** Reads the regular file lstat saw at `entry`: `same` when it holds `content`, else `different` (hashed on `digest`). */
async function compareContent(
  entry: string,
  seen: BigIntStats,
  content: Uint8Array | ContentDigest,
  shownAs: string,
  digest: boolean,
): Promise<TargetState> {
  let handle;
  try {
    handle = await open(entry, READ_FLAGS);
  } catch (error) {
    // Swapped or removed since lstat: not provably the same, and the rename replaces whatever entry is there.
    if (['ELOOP', 'ENOENT', 'ENXIO'].includes(errnoOf(error) ?? '')) return { kind: 'different' };
    throw workspaceErrorFrom(error, 'open', shownAs);
  }
  try {
    const opened = await withWorkspaceError('fstat', shownAs, () => handle.stat({ bigint: true }));
    if (!opened.isFile() || opened.ino !== seen.ino || opened.dev !== seen.dev) return { kind: 'different' };
    if (!(content instanceof Uint8Array)) {
      const held = await withWorkspaceError('read', shownAs, () => sha256Of(handle));
      return held === content.sha256
        ? { kind: 'same' }
        : { kind: 'different', ...(digest ? { sha256: held } : {}) };
    }
    const held = await withWorkspaceError('read', shownAs, () => handle.readFile());
    if (held.equals(Buffer.from(content.buffer, content.byteOffset, content.byteLength)))
      return { kind: 'same' };
    return digest
      ? { kind: 'different', sha256: createHash('sha256').update(held).digest('hex') }
      : { kind: 'different' };
  } finally {
    await handle.close();
  }
}

/** The sha256 (hex) of an open file, read in fixed chunks so a large file never sits in memory. */
async function sha256Of(handle: QuickHandle): Promise<string> {
  const hash = createHash('sha256');
  const chunk = Buffer.allocUnsafe(64 * 1024);
  for (;;) {
    const { bytesRead } = await handle.read(chunk, 0, chunk.length);
    if (bytesRead === 0) return hash.digest('hex');
    hash.update(chunk.subarray(0, bytesRead));
  }
}
