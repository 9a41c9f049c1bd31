import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { runEventsPath } from '../project/index.js';
import type { RunId } from '../project/index.js';

/** What stands where a log was looked for but is no log to read: nothing there, a symlink, a FIFO, a folder. */
const NO_LOG = new Set(['ENOENT', 'ENOTDIR', 'ELOOP', 'ENXIO', 'EISDIR']);

/**
 * A run's events.jsonl opened for reading, or undefined where there is no log to read: nothing there, or a
 * symlink, FIFO, device or folder planted in its place (never followed, never blocking); other I/O errors are
 * thrown. The caller closes the handle.
 */
export async function openRunEventsFile(projectDir: string, runId: RunId): Promise<FileHandle | undefined> {
  let handle: FileHandle;
  try {
    // O_NOFOLLOW: never through a symlink; O_NONBLOCK: a FIFO opened here cannot block the reader.
    handle = await open(
      path.join(projectDir, runEventsPath(runId)),
      constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK,
    );
  } catch (error) {
    if (NO_LOG.has((error as NodeJS.ErrnoException).code ?? '')) return undefined;
    throw error;
  }
  if (!(await handle.stat()).isFile()) {
    await handle.close();
    return undefined;
  }
  return handle;
}

/**
 * The events of a run's events.jsonl whose line contains `marker` (an event name in quotes, say), parsed, in
 * order, read line by line (the log is never held whole). A missing log, one planted as a symlink or a FIFO,
 * and lines that are not JSON objects count as no event; other I/O errors are thrown.
 */
export async function* readRunEvents(
  projectDir: string,
  runId: RunId,
  marker: string,
): AsyncGenerator<Readonly<Record<string, unknown>>> {
  const handle = await openRunEventsFile(projectDir, runId);
  if (handle === undefined) return;
  try {
    const lines = createInterface({
      input: handle.createReadStream({ autoClose: false }),
      crlfDelay: Infinity,
    });
    for await (const line of lines) {
      // Most lines are other events: skip them before paying for JSON.parse.
      if (!line.includes(marker)) continue;
      const event = parseObject(line);
      if (event !== undefined) yield event;
    }
  } finally {
    await handle.close();
  }
}

function parseObject(line: string): Readonly<Record<string, unknown>> | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    // A torn line (a writer killed mid-line) is no event.
    return undefined;
  }
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}
