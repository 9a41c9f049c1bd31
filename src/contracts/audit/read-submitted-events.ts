import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { runEventsPath } from '../../project/index.js';
import type { RunId } from '../../project/index.js';
import { errnoOf } from '../../workspace/index.js';

/** The `artifact.submitted` events of a run: for each artifact path, the hashes submitted to it. */
export type SubmittedEvents = ReadonlyMap<string, ReadonlySet<string>>;

/**
 * Reads the run's `artifact.submitted` events from its events.jsonl, line by line (the log is never read
 * whole); a missing log, a log planted as a symlink and unreadable lines count as no event.
 */
export async function readSubmittedEvents(projectDir: string, runId: RunId): Promise<SubmittedEvents> {
  const submitted = new Map<string, Set<string>>();
  let handle;
  try {
    handle = await open(
      path.join(projectDir, runEventsPath(runId)),
      constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK,
    );
  } catch (error) {
    const code = errnoOf(error);
    if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'ELOOP' || code === 'ENXIO') return submitted;
    throw error;
  }
  try {
    if (!(await handle.stat()).isFile()) return submitted;
    const lines = createInterface({
      input: handle.createReadStream({ autoClose: false }),
      crlfDelay: Infinity,
    });
    for await (const line of lines) {
      // Most lines are other events: skip them before paying for JSON.parse.
      if (!line.includes('"artifact.submitted"')) continue;
      const event = parseEvent(line);
      if (event === undefined) continue;
      const hashes = submitted.get(event.path) ?? new Set<string>();
      hashes.add(event.hash);
      submitted.set(event.path, hashes);
    }
    return submitted;
  } finally {
    await handle.close();
  }
}

function parseEvent(line: string): { readonly path: string; readonly hash: string } | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const { event, path: artifactPath, hash } = value as Record<string, unknown>;
  if (event !== 'artifact.submitted' || typeof artifactPath !== 'string' || typeof hash !== 'string')
    return undefined;
  return { path: artifactPath, hash };
}
