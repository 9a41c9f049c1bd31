import { runEventsPath } from '../project/index.js';
import type { RunId } from '../project/index.js';
import { StoreError, usingProject } from '../store/index.js';
import type { ProjectRef, StoredFileReader } from '../store/index.js';

/** What opening a project folder that is not there answers (the store's walk answers everything below it). */
const PROJECT_MISSING = new Set<unknown>(['ENOENT', 'ENOTDIR']);

/** How much of events.jsonl is read at a time. */
const CHUNK_BYTES = 64 * 1024;

/**
 * A run's events.jsonl opened for reading through the project's store, or undefined where there is no log to
 * read: nothing there (no project folder included), or what the store reads nothing through (a symlink, FIFO,
 * device, folder or second name of a file planted in its place, a symlinked folder on the way), never followed
 * and never blocking; other I/O errors are thrown. The caller closes the reader.
 */
export async function openRunEventsReader(
  project: ProjectRef,
  runId: RunId,
): Promise<StoredFileReader | undefined> {
  return usingProject(project, async ({ store }) => {
    try {
      return await store.openReader(runEventsPath(runId));
    } catch (error) {
      if (error instanceof StoreError && error.code === 'not_a_file') return undefined;
      // No project folder (or a file in its place) holds no log either.
      if (PROJECT_MISSING.has((error as { code?: unknown }).code)) return undefined;
      throw error;
    }
  });
}

/**
 * The events of a run's events.jsonl whose line contains `marker` (an event name in quotes, say), parsed, in
 * order, read line by line (the log is never held whole). A missing log, one planted as a symlink or a FIFO,
 * and lines that are not JSON objects count as no event; other I/O errors are thrown.
 */
export async function* readRunEvents(
  project: ProjectRef,
  runId: RunId,
  marker: string,
): AsyncGenerator<Readonly<Record<string, unknown>>> {
  const reader = await openRunEventsReader(project, runId);
  if (reader === undefined) return;
  try {
    for await (const line of linesOf(reader)) {
      // Most lines are other events: skip them before paying for JSON.parse.
      if (!line.includes(marker)) continue;
      const event = parseObject(line);
      if (event !== undefined) yield event;
    }
  } finally {
    await reader.close();
  }
}

/** The lines of the file, read a chunk at a time; the last one is yielded even without its newline. */
async function* linesOf(reader: StoredFileReader): AsyncGenerator<string> {
  // The pieces of a line begun in earlier chunks, joined once its newline comes.
  let begun: Buffer[] = [];
  for (let position = 0; position < reader.size;) {
    const chunk = await reader.read(position, CHUNK_BYTES);
    if (chunk.byteLength === 0) break;
    position += chunk.byteLength;
    const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    let start = 0;
    for (let end = bytes.indexOf(0x0a); end !== -1; end = bytes.indexOf(0x0a, start)) {
      const rest = bytes.subarray(start, end);
      yield (begun.length === 0 ? rest : Buffer.concat([...begun, rest])).toString('utf8');
      begun = [];
      start = end + 1;
    }
    if (start < bytes.byteLength) begun.push(bytes.subarray(start));
  }
  if (begun.length > 0) yield Buffer.concat(begun).toString('utf8');
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
