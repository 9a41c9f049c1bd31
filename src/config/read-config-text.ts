import { readFile, stat } from 'node:fs/promises';
import { ConfigError } from './config-error.js';

/** Largest config or definition file read (the project config, a graph, a workflow), in bytes. */
export const MAX_CONFIG_FILE_BYTES = 1024 * 1024;

/**
 * Reads a YAML config or definition file as UTF-8 text (a byte order mark dropped), or undefined when there
 * is no such file; a directory, a file over {@link MAX_CONFIG_FILE_BYTES} or text that is not UTF-8 is a
 * `ConfigError`, and other read failures are thrown as they are.
 */
export async function readConfigText(file: string): Promise<string | undefined> {
  const maxBytes = MAX_CONFIG_FILE_BYTES;
  const refuse = (message: string): ConfigError => new ConfigError(file, [{ path: '', message }]);
  let size: number;
  try {
    const stats = await stat(file);
    if (stats.isDirectory()) throw refuse('is a directory; give the path of a YAML file');
    // Opening a FIFO would block until something writes to it.
    if (!stats.isFile()) throw refuse('is not a regular file; give the path of a YAML file');
    size = stats.size;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw error;
  }
  if (size > maxBytes) {
    throw refuse(
      `is ${String(size)} bytes; config and definition files are limited to ${String(maxBytes)} bytes`,
    );
  }
  const bytes = await readFile(file);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw refuse('is not valid UTF-8; save it as UTF-8');
  }
}
