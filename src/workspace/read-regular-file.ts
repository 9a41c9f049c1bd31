import { constants } from 'node:fs';
import type { Stats } from 'node:fs';
import { open } from 'node:fs/promises';

/** Flags of a read that never waits: O_NONBLOCK, so a FIFO with no writer cannot hold the open. */
export const NONBLOCKING_READ = constants.O_RDONLY | constants.O_NONBLOCK;

/** {@link NONBLOCKING_READ} that also refuses a symlink at the file's own name (O_NOFOLLOW: the open fails ELOOP). */
export const NONBLOCKING_NOFOLLOW_READ = NONBLOCKING_READ | constants.O_NOFOLLOW;

/**
 * The error for an entry that is not a regular file, shaped like Node's own (code, syscall, path): EISDIR for a
 * folder, EINVAL for a FIFO, socket or device.
 */
export function notRegularFileError(path: string, stats: Stats): Error {
  const code = stats.isDirectory() ? 'EISDIR' : 'EINVAL';
  const what = stats.isDirectory() ? 'a folder' : 'a FIFO, socket or device';
  return Object.assign(
    new Error(`${code}: not a regular file, read '${path}' (${what} is in its place; remove it)`),
    {
      code,
      syscall: 'read',
      path,
    },
  );
}

/** Options of {@link readRegularFile}. */
export interface ReadRegularFileOptions {
  /** Aborts the read between chunks (an `ABORT_ERR`, as `fs.readFile` gives). */
  readonly signal?: AbortSignal;
}

export function readRegularFile(
  path: string,
  encoding?: undefined,
  options?: ReadRegularFileOptions,
): Promise<Buffer>;
export function readRegularFile(
  path: string,
  encoding: 'utf8',
  options?: ReadRegularFileOptions,
): Promise<string>;
/**
 * Reads a whole file through libuv's pool, like `fs.readFile`, but opened with O_NONBLOCK and checked by fstat
 * before any read: a FIFO, socket or device planted where a project file belongs is an error, never a read that
 * waits forever for a writer. Missing files reject with ENOENT, as before.
 */
export async function readRegularFile(
  path: string,
  encoding?: 'utf8',
  options: ReadRegularFileOptions = {},
): Promise<Buffer | string> {
  const handle = await open(path, NONBLOCKING_READ);
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw notRegularFileError(path, stats);
    const bytes = await handle.readFile(options.signal === undefined ? {} : { signal: options.signal });
    return encoding === undefined ? bytes : bytes.toString('utf8');
  } finally {
    await handle.close();
  }
}
