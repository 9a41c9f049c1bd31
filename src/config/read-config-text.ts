import { constants } from 'node:fs';
import type { Stats } from 'node:fs';
import { open } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { ConfigError } from './config-error.js';

/** Largest config or definition file read (the project config, a graph, a workflow), in bytes. */
export const MAX_CONFIG_FILE_BYTES = 1024 * 1024;

/** Flags a config or definition file is opened with: O_NONBLOCK, so a FIFO with no writer cannot hold the open. */
export const CONFIG_READ_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK;

const CHUNK_BYTES = 64 * 1024;

/** What {@link readOpenedConfigText} needs of an open file: a `FileHandle`, or the workspace's quick handle. */
export interface OpenedConfigFile {
  stat(): Promise<Stats>;
  read(
    buffer: Uint8Array,
    offset: number,
    length: number,
    position: number | null,
  ): Promise<{ readonly bytesRead: number }>;
}

/** How {@link readConfigText} opens its file. */
export interface ReadConfigTextOptions {
  /**
   * False for a file the product wrote itself (a run's pinned definition): a symlink at the file's own name is
   * refused, never followed (O_NOFOLLOW; the open throws ELOOP). Default true: a user's config may be a link.
   */
  readonly followSymlink?: boolean;
}

/**
 * Reads a YAML config or definition file as UTF-8 text (a byte order mark dropped), or undefined when there
 * is no such file; a directory, a FIFO or device, a file over {@link MAX_CONFIG_FILE_BYTES} or text that is
 * not UTF-8 is a `ConfigError`, and other read failures are thrown as they are.
 */
export async function readConfigText(
  file: string,
  options: ReadConfigTextOptions = {},
): Promise<string | undefined> {
  let handle: FileHandle;
  try {
    handle = await open(
      file,
      CONFIG_READ_FLAGS | (options.followSymlink === false ? constants.O_NOFOLLOW : 0),
    );
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw error;
  }
  try {
    return await readOpenedConfigText(handle, file);
  } finally {
    await handle.close();
  }
}

/**
 * The text of a config or definition file the caller opened (with {@link CONFIG_READ_FLAGS}): checked with
 * fstat before any read, and never more than {@link MAX_CONFIG_FILE_BYTES} read, even from a file that grows;
 * `file` names it in the `ConfigError`s, as {@link readConfigText}'s.
 */
export async function readOpenedConfigText(handle: OpenedConfigFile, file: string): Promise<string> {
  const maxBytes = MAX_CONFIG_FILE_BYTES;
  const refuse = (message: string): ConfigError => new ConfigError(file, [{ path: '', message }]);
  const stats = await handle.stat();
  if (stats.isDirectory()) throw refuse('is a directory; give the path of a YAML file');
  if (!stats.isFile()) throw refuse('is not a regular file; give the path of a YAML file');
  const tooBig = (size: string): ConfigError =>
    refuse(`is ${size} bytes; config and definition files are limited to ${String(maxBytes)} bytes`);
  if (stats.size > maxBytes) throw tooBig(String(stats.size));
  const chunks: Buffer[] = [];
  let total = 0;
  // Until a read returns nothing (a short read is not trusted to be the end), the size fstat gave in one buffer
  // first; one byte past the limit is enough to know a file that grew since fstat is too big.
  let wanted = stats.size + 1;
  while (total <= maxBytes) {
    const chunk = Buffer.allocUnsafe(Math.min(wanted, maxBytes + 1 - total));
    const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
    if (bytesRead === 0) break;
    chunks.push(chunk.subarray(0, bytesRead));
    total += bytesRead;
    wanted = CHUNK_BYTES;
  }
  if (total > maxBytes) throw tooBig(`more than ${String(maxBytes)}`);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks, total));
  } catch {
    throw refuse('is not valid UTF-8; save it as UTF-8');
  }
}
