import {
  chmodSync,
  closeSync,
  fchmodSync,
  fdatasync,
  fstatSync,
  read,
  fsync,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  readSync,
  realpathSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import type { BigIntStats, Dirent, Stats } from 'node:fs';
import { NONBLOCKING_READ, notRegularFileError } from './read-regular-file.js';

/**
 * File calls answered on the calling thread, in the shape of `node:fs/promises`, for the small metadata calls,
 * reads and writes of the workspace writer and the artifact store (D81). A call through the thread pool costs a
 * round trip between threads (60-290 us here) where the system call itself costs 3-12 us; a recorded batch made
 * about 300 of them. Only `sync` and `datasync`, the calls that wait for the disk, still go through the pool, so
 * the event loop never waits for a flush. Errors are Node's own (code, syscall, path), as a rejected promise.
 */

/** The subset of `FileHandle` the writer and the store use, backed by a plain descriptor. */
export interface QuickHandle {
  readonly fd: number;
  stat(options: { readonly bigint: true }): Promise<BigIntStats>;
  stat(options?: { readonly bigint?: false }): Promise<Stats>;
  /** Reads up to `length` bytes at `position` (or the current offset when null). */
  read(
    buffer: Uint8Array,
    offset: number,
    length: number,
    position?: number | null,
  ): Promise<{ readonly bytesRead: number }>;
  /** Writes `length` bytes of `buffer` from `offset` (at `position`, or the current offset / end for O_APPEND). */
  write(
    buffer: Uint8Array,
    offset?: number,
    length?: number,
    position?: number | null,
  ): Promise<{ readonly bytesWritten: number }>;
  /** Writes all of `data` (a string as UTF-8) from the current offset. */
  writeFile(data: Uint8Array | string): Promise<void>;
  /** Reads from the current offset to the end. */
  readFile(): Promise<Buffer>;
  /**
   * read(2) of up to `buffer.length` bytes from the current offset through libuv's pool, so the event loop keeps
   * serving while a large file is read chunk by chunk; resolves to the bytes read (0 at the end).
   */
  readInPool(buffer: Uint8Array): Promise<number>;
  chmod(mode: number): Promise<void>;
  /** fsync(2), through the thread pool. */
  sync(): Promise<void>;
  /** fdatasync(2), through the thread pool. */
  datasync(): Promise<void>;
  /** Closes the descriptor; closing again does nothing. */
  close(): Promise<void>;
}

const settle = <T>(work: () => T): Promise<T> => {
  try {
    return Promise.resolve(work());
  } catch (error) {
    return Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }
};

function quickHandle(fd: number): QuickHandle {
  let closed = false;
  const flush = (call: typeof fsync): Promise<void> =>
    new Promise((resolve, reject) => {
      call(fd, (error) => {
        if (error === null) resolve();
        else reject(error);
      });
    });
  const writeAll = (bytes: Uint8Array): void => {
    for (let at = 0; at < bytes.byteLength;) at += writeSync(fd, bytes, at, bytes.byteLength - at);
  };
  return {
    fd,
    stat: ((options?: { readonly bigint?: boolean }) =>
      settle(() =>
        options?.bigint === true ? fstatSync(fd, { bigint: true }) : fstatSync(fd),
      )) as QuickHandle['stat'],
    read: (buffer, offset, length, position = null) =>
      settle(() => ({ bytesRead: readSync(fd, buffer, offset, length, position) })),
    write: (buffer, offset = 0, length = buffer.byteLength - offset, position = null) =>
      settle(() => ({ bytesWritten: writeSync(fd, buffer, offset, length, position) })),
    writeFile: (data) =>
      settle(() => {
        writeAll(typeof data === 'string' ? Buffer.from(data, 'utf8') : data);
      }),
    readFile: () =>
      settle(() => {
        const chunks: Buffer[] = [];
        let total = 0;
        for (;;) {
          const size = fstatSync(fd).size;
          const chunk = Buffer.allocUnsafe(Math.max(size - total, 0) + 8192);
          const bytesRead = readSync(fd, chunk, 0, chunk.byteLength, null);
          if (bytesRead === 0) break;
          chunks.push(chunk.subarray(0, bytesRead));
          total += bytesRead;
        }
        return chunks.length === 1 ? (chunks[0] ?? Buffer.alloc(0)) : Buffer.concat(chunks, total);
      }),
    readInPool: (buffer) =>
      new Promise((resolve, reject) => {
        read(fd, buffer, 0, buffer.byteLength, null, (error, bytesRead) => {
          if (error === null) resolve(bytesRead);
          else reject(error);
        });
      }),
    chmod: (mode) =>
      settle(() => {
        fchmodSync(fd, mode);
      }),
    sync: () => flush(fsync),
    datasync: () => flush(fdatasync),
    close: () =>
      settle(() => {
        if (closed) return;
        closed = true;
        closeSync(fd);
      }),
  };
}

/** open(2) on the calling thread: a {@link QuickHandle}. */
export function open(path: string, flags: number | string, mode?: number): Promise<QuickHandle> {
  return settle(() => quickHandle(openSync(path, flags, mode)));
}

export function lstat(path: string, options: { readonly bigint: true }): Promise<BigIntStats>;
export function lstat(path: string): Promise<Stats>;
export function lstat(path: string, options?: { readonly bigint?: boolean }): Promise<Stats | BigIntStats> {
  return settle(() => (options?.bigint === true ? lstatSync(path, { bigint: true }) : lstatSync(path)));
}

export function stat(path: string): Promise<Stats> {
  return settle(() => statSync(path));
}

/** mkdir(2) with `mode`, or every missing level with `{ recursive: true }` (`mkdir -p`). */
export function mkdir(path: string, options?: number | { readonly recursive: true }): Promise<void> {
  return settle(() => {
    mkdirSync(path, typeof options === 'number' || options === undefined ? options : { recursive: true });
  });
}

export function rename(from: string, to: string): Promise<void> {
  return settle(() => {
    renameSync(from, to);
  });
}

export function unlink(path: string): Promise<void> {
  return settle(() => {
    unlinkSync(path);
  });
}

export function link(existing: string, created: string): Promise<void> {
  return settle(() => {
    linkSync(existing, created);
  });
}

export function chmod(path: string, mode: number): Promise<void> {
  return settle(() => {
    chmodSync(path, mode);
  });
}

export function readlink(path: string): Promise<string> {
  return settle(() => readlinkSync(path));
}

export function realpath(path: string): Promise<string> {
  return settle(() => realpathSync.native(path));
}

export function readdir(path: string, options: { readonly withFileTypes: true }): Promise<Dirent[]>;
export function readdir(path: string): Promise<string[]>;
export function readdir(
  path: string,
  options?: { readonly withFileTypes?: boolean },
): Promise<Dirent[] | string[]> {
  return settle(() =>
    options?.withFileTypes === true ? readdirSync(path, { withFileTypes: true }) : readdirSync(path),
  );
}

export function readFile(path: string): Promise<Buffer>;
export function readFile(path: string, encoding: 'utf8'): Promise<string>;
/**
 * Reads a whole regular file. Opened with O_NONBLOCK and checked by fstat before any read: a FIFO planted in its
 * place would otherwise block the open, and here that is the whole event loop, not one pool thread.
 */
export function readFile(path: string, encoding?: 'utf8'): Promise<Buffer | string> {
  return settle(() => {
    const fd = openSync(path, NONBLOCKING_READ);
    try {
      const stats = fstatSync(fd);
      if (!stats.isFile()) throw notRegularFileError(path, stats);
      const bytes = readFileSync(fd);
      return encoding === undefined ? bytes : bytes.toString('utf8');
    } finally {
      closeSync(fd);
    }
  });
}
