import { openRunEventsReader } from '../../events/index.js';
import type { RunId } from '../../project/index.js';
import type { ProjectRef } from '../../store/index.js';
import { STATE_REVISION_FIELD } from '../../runs/index.js';
import type { RevisionEvent } from '../../runs/index.js';
import type { WorkflowState } from '../../runs/index.js';

/** How much of events.jsonl is read at a time, from its end backwards. */
const CHUNK_BYTES = 64 * 1024;

const MARKER = `"${STATE_REVISION_FIELD}":`;

/**
 * The events of `state`'s revision (its `revision_events`) that the run's events.jsonl does not hold: those a
 * writer killed between state.json and its events never appended. Reads the log from its end back to the
 * first event of an older revision, so it costs what was appended since, not the whole log.
 */
export async function findMissingRevisionEvents(
  project: ProjectRef,
  state: WorkflowState,
): Promise<RevisionEvent[]> {
  const expected = state.revision_events ?? [];
  if (expected.length === 0) return [];
  const appended = await appendedEventNames(project, state.run_id, state.revision);
  const missing: RevisionEvent[] = [];
  for (const entry of expected) {
    const at = appended.indexOf(entry.event);
    if (at === -1) missing.push(entry);
    else appended.splice(at, 1);
  }
  return missing;
}

/** The names of the events appended for `revision`, newest first. */
async function appendedEventNames(project: ProjectRef, runId: RunId, revision: number): Promise<string[]> {
  const reader = await openRunEventsReader(project, runId);
  if (reader === undefined) return [];
  try {
    const names: string[] = [];
    // Bytes of a line cut by the chunk's start, completed by the next (earlier) chunk.
    let carry = Buffer.alloc(0);
    for (let end = reader.size; end > 0;) {
      const start = Math.max(0, end - CHUNK_BYTES);
      const buffer = Buffer.concat([await reader.read(start, end - start), carry]);
      // Above the file's start, the first line may begin in the earlier chunk: keep it for then.
      const cut = start === 0 ? -1 : buffer.indexOf(0x0a);
      carry = start === 0 ? Buffer.alloc(0) : buffer.subarray(0, cut === -1 ? buffer.length : cut);
      const whole = start === 0 ? buffer : cut === -1 ? Buffer.alloc(0) : buffer.subarray(cut + 1);
      const lines = whole.toString('utf8').split('\n');
      for (let index = lines.length - 1; index >= 0; index -= 1) {
        const seen = revisionOf(lines[index] ?? '');
        if (seen === undefined) continue;
        if (seen.revision < revision) return names;
        if (seen.revision === revision) names.push(seen.event);
      }
      end = start;
    }
    return names;
  } finally {
    await reader.close();
  }
}

/** The state revision and event name of a line appended for a revision; undefined for any other line. */
function revisionOf(line: string): { readonly revision: number; readonly event: string } | undefined {
  // Most lines are other events: skip them before paying for JSON.parse.
  if (!line.includes(MARKER)) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    // A torn line (a writer killed mid-line) is no event.
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const { [STATE_REVISION_FIELD]: revision, event } = value as Record<string, unknown>;
  return typeof revision === 'number' && typeof event === 'string' ? { revision, event } : undefined;
}
