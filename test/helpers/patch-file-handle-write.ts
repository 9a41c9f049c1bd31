import { open } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';

/** `FileHandle.write` as the buffer writers call it: a buffer, where to start in it, how many bytes. */
export type BufferWrite = (
  this: FileHandle,
  buffer: Buffer,
  offset?: number,
  length?: number,
) => Promise<{ bytesWritten: number; buffer: Buffer }>;

/**
 * Replaces `FileHandle.prototype.write` (every handle of the process shares it) with `wrap(original)`, to play a
 * disk that takes writes in part or drops bytes; returns the function that puts the original back.
 */
export async function patchFileHandleWrite(
  wrap: (original: BufferWrite) => BufferWrite,
): Promise<() => void> {
  const probe = await open(process.execPath, 'r');
  const prototype = Object.getPrototypeOf(probe) as { write: BufferWrite };
  await probe.close();
  const original = prototype.write;
  prototype.write = wrap(original);
  return () => {
    prototype.write = original;
  };
}
