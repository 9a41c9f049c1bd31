import { fstatSync, readSync, writeSync } from 'node:fs';
import type { QuickHandle } from '../workspace/index.js';
import type { LineAppender } from './project-store.js';

/** How long a last line without `\n` must stay unchanged to count as interrupted, not as a write in progress. */
const SETTLE_MS = 10;
const sleeper = new Int32Array(new SharedArrayBuffer(4));

/**
 * A {@link LineAppender} on an O_APPEND descriptor: each `write` is one write(2) (the rest written at once if the
 * kernel took part of it), so concurrent writers never interleave inside a line.
 */
export function fileAppender(handle: QuickHandle): LineAppender {
  let closed = false;
  return {
    write: (lines) => {
      if (closed) throw new Error('the appender is closed');
      const bytes = Buffer.from(endsInsideLine(handle.fd) ? `\n${lines}` : lines, 'utf8');
      for (let written = 0; written < bytes.byteLength;) {
        written += writeSync(handle.fd, bytes, written, bytes.byteLength - written);
      }
    },
    sync: () => handle.datasync(),
    close: async () => {
      closed = true;
      await handle.close();
    },
  };
}

/**
 * Whether the file ends inside a line that an interrupted write left (a full disk, a kill): the last byte, read
 * with pread(2), is not `\n` and the size holds for SETTLE_MS, since another writer's line in progress can show
 * a size mid-line for a moment. An error reads as no: the write that follows reports it.
 */
export function endsInsideLine(fd: number): boolean {
  try {
    let end = lastByteOf(fd);
    let stableFor = 0;
    for (let checks = 0; end.open && stableFor < SETTLE_MS && checks < 100 * SETTLE_MS; checks++) {
      // A synchronous 1 ms sleep: the appender writes synchronously, and this wait only happens at an open line.
      Atomics.wait(sleeper, 0, 0, 1);
      const now = lastByteOf(fd);
      stableFor = now.size === end.size ? stableFor + 1 : 0;
      end = now;
    }
    return end.open;
  } catch {
    return false;
  }
}

function lastByteOf(fd: number): { readonly size: number; readonly open: boolean } {
  const { size } = fstatSync(fd);
  if (size === 0) return { size, open: false };
  const last = Buffer.alloc(1);
  return { size, open: readSync(fd, last, 0, 1, size - 1) === 1 && last[0] !== 0x0a };
}
