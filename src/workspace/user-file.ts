import { open } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { errnoOf } from './errno-of.js';
import { NONBLOCKING_READ } from './read-regular-file.js';

/**
 * Files the user names on a command line (a payload, a step's output, a bundle, an earlier report): a symlink is
 * followed, as for any path typed, but the open never waits (O_NONBLOCK, so a FIFO with no writer cannot hold it)
 * and only a regular file, checked by fstat on the descriptor before any read, is handed back.
 */

/** Why a file the user named cannot be read as one. */
export type UserFileRefusal =
  | {
      readonly ok: false;
      readonly problem: 'not_regular';
      readonly what: 'a folder' | 'a FIFO, socket or device';
    }
  | { readonly ok: false; readonly problem: 'unreadable'; readonly cause: unknown };

/** The open regular file (the caller closes it), or why there is none. */
export type UserFileOpening = { readonly ok: true; readonly handle: FileHandle } | UserFileRefusal;

/** The first bytes of a file the user named, or why there are none. */
export type UserFileHead = { readonly ok: true; readonly bytes: Buffer } | UserFileRefusal;

const CHUNK_BYTES = 64 * 1024;

/** Opens a file the user named for reading; anything but a regular file is refused, never read. */
export async function openUserFile(file: string): Promise<UserFileOpening> {
  let handle: FileHandle;
  try {
    handle = await open(file, NONBLOCKING_READ);
  } catch (cause) {
    // open(2) of a socket fails ENXIO: it is not a file either.
    if (errnoOf(cause) === 'ENXIO')
      return { ok: false, problem: 'not_regular', what: 'a FIFO, socket or device' };
    return { ok: false, problem: 'unreadable', cause };
  }
  let refusal: UserFileRefusal;
  try {
    const info = await handle.stat();
    if (info.isFile()) return { ok: true, handle };
    refusal = {
      ok: false,
      problem: 'not_regular',
      what: info.isDirectory() ? 'a folder' : 'a FIFO, socket or device',
    };
  } catch (cause) {
    refusal = { ok: false, problem: 'unreadable', cause };
  }
  await handle.close().catch(() => undefined);
  return refusal;
}

/**
 * At most `maxBytes` bytes from the start of a file the user named (all of it when shorter), opened as
 * {@link openUserFile} opens it. A file that grows while it is read is still cut at `maxBytes`, so asking for one
 * byte more than a limit tells a file over it without ever holding the whole of a huge one.
 */
export async function readUserFileHead(file: string, maxBytes: number): Promise<UserFileHead> {
  const opening = await openUserFile(file);
  if (!opening.ok) return opening;
  try {
    const chunks: Buffer[] = [];
    let total = 0;
    while (total < maxBytes) {
      const chunk = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, maxBytes - total));
      const { bytesRead } = await opening.handle.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      chunks.push(chunk.subarray(0, bytesRead));
      total += bytesRead;
    }
    return { ok: true, bytes: Buffer.concat(chunks, total) };
  } catch (cause) {
    return { ok: false, problem: 'unreadable', cause };
  } finally {
    await opening.handle.close().catch(() => undefined);
  }
}
