import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { lstat, open, unlink } from '../quick-fs.js';
import type { QuickHandle } from '../quick-fs.js';
import { join } from 'node:path';
import type { DirectoryHandle } from '../walk/index.js';
import { errnoOf } from '../errno-of.js';
import { tempFileName } from '../temp-file-name.js';
import { WorkspaceError, withWorkspaceError, workspaceErrorFrom } from '../workspace-error.js';

/** Which inode a file the writer created is, so cleanup never removes someone else's file. */
export interface FileIdentity {
  readonly dev: bigint;
  readonly ino: bigint;
}

/** A fully written temp file in the target directory, closed and ready to be renamed. */
export interface TempFile {
  readonly name: string;
  readonly identity: FileIdentity;
}

// O_EXCL: never reuse an entry someone planted; O_NOFOLLOW: never create through a symlink.
const CREATE_FLAGS = constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY | constants.O_NOFOLLOW;
/** The mode of every file the writer creates: never executable; read-only when the caller asks (objects). */
export const FILE_MODE = 0o644;
export const READ_ONLY_MODE = 0o444;
const NAME_ATTEMPTS = 4;

/** Creates a temp file exclusively in `directory`, writes all `bytes`, sets `mode` and, if durable, fsyncs it. */
export async function writeTempFile(
  directory: DirectoryHandle,
  bytes: Uint8Array,
  durable: boolean,
  mode = FILE_MODE,
): Promise<TempFile> {
  const { name, identity } = await fillTempFile(directory, durable, mode, async (handle, shownAs) => {
    await withWorkspaceError('write', shownAs, () => handle.writeFile(bytes));
  });
  return { name, identity };
}

/** A streamed temp file, with the sha256 (hex) and size of what was written. */
export interface StreamedTempFile extends TempFile {
  readonly sha256: string;
  readonly size: number;
}

/**
 * Creates a temp file exclusively in `directory` and writes each chunk as it arrives, hashing it on the way:
 * memory holds one chunk, whatever the file's size. A failed write or source removes the temp file.
 */
export async function streamTempFile(
  directory: DirectoryHandle,
  chunks: AsyncIterable<Uint8Array>,
  durable: boolean,
  mode = FILE_MODE,
): Promise<StreamedTempFile> {
  const hash = createHash('sha256');
  let size = 0;
  const { name, identity } = await fillTempFile(directory, durable, mode, async (handle, shownAs) => {
    for await (const chunk of chunks) {
      hash.update(chunk);
      size += chunk.byteLength;
      // write(2) may take fewer bytes than asked; the rest goes in the next call.
      for (let at = 0; at < chunk.byteLength;) {
        const { bytesWritten } = await withWorkspaceError('write', shownAs, () =>
          handle.write(chunk, at, chunk.byteLength - at),
        );
        at += bytesWritten;
      }
    }
  });
  return { name, identity, sha256: hash.digest('hex'), size };
}

/**
 * The one life of a temp file: created exclusively with `mode`, filled by `fill`, fsynced if durable, its
 * identity taken, closed; on any failure it is removed, so no partial temp file outlives its writer.
 */
async function fillTempFile(
  directory: DirectoryHandle,
  durable: boolean,
  mode: number,
  fill: (handle: QuickHandle, shownAs: string) => Promise<void>,
): Promise<TempFile> {
  const { name, handle } = await createExclusively(directory, mode);
  const shownAs = join(directory.expectedLocation, name);
  let identity: FileIdentity | undefined;
  try {
    const stats = await withWorkspaceError('fstat', shownAs, () => handle.stat({ bigint: true }));
    // fchmod, because the umask may have cleared bits of the create mode; files are never executable.
    if ((stats.mode & 0o7777n) !== BigInt(mode)) {
      await withWorkspaceError('fchmod', shownAs, () => handle.chmod(mode));
    }
    await fill(handle, shownAs);
    if (durable) await withWorkspaceError('fsync', shownAs, () => handle.sync());
    identity = { dev: stats.dev, ino: stats.ino };
  } finally {
    await handle.close();
    if (identity === undefined) await unlink(directory.entry(name)).catch(() => undefined);
  }
  return { name, identity };
}

/** Unlinks `entry` only while it is still the file with `identity`; a vanished entry is fine. */
export async function removeOwnFile(entry: string, identity: FileIdentity, shownAs: string): Promise<void> {
  try {
    const stats = await lstat(entry, { bigint: true });
    if (stats.ino === identity.ino && stats.dev === identity.dev) await unlink(entry);
  } catch (error) {
    if (errnoOf(error) !== 'ENOENT') throw workspaceErrorFrom(error, 'unlink', shownAs);
  }
}

async function createExclusively(
  directory: DirectoryHandle,
  mode: number,
): Promise<{ name: string; handle: QuickHandle }> {
  for (let attempt = 0; attempt < NAME_ATTEMPTS; attempt += 1) {
    const name = tempFileName();
    try {
      // A read-only create mode still gives this descriptor write access: the mode binds later opens.
      return { name, handle: await open(directory.entry(name), CREATE_FLAGS, mode) };
    } catch (error) {
      if (errnoOf(error) !== 'EEXIST') {
        throw workspaceErrorFrom(error, 'open', join(directory.expectedLocation, name));
      }
    }
  }
  throw new WorkspaceError({ code: 'EEXIST', syscall: 'open', path: directory.expectedLocation });
}
