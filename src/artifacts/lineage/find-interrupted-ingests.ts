import { createReadStream } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { runEventsPath } from '../../project/index.js';
import type { RunId } from '../../project/index.js';
import { errnoOf } from '../../workspace/index.js';

/** An ingest whose `ingest.started` event no later `ingest.summary` of the same node and document followed. */
export interface InterruptedIngest {
  readonly runId: RunId;
  readonly nodeId: string;
  readonly docPath: string;
  /** How many files it planned to write. */
  readonly planned: number;
  /** The planned workspace paths the event lists (at most the first 50). */
  readonly plannedPaths: readonly string[];
  /** When the interrupted ingest started. */
  readonly ts: string;
}

// Only these lines are parsed: a run's event log can be long, and every other event is irrelevant here.
const INGEST_EVENT = /"event":"ingest\.(?:started|summary)"/u;

/**
 * Reads a run's events.jsonl and returns each ingest that started and never summarised: an ingest is complete
 * once any later `ingest.summary` of the same node and document exists (a re-run or a resume completes it).
 */
export async function findInterruptedIngests(projectDir: string, runId: RunId): Promise<InterruptedIngest[]> {
  const open = new Map<string, InterruptedIngest[]>();
  const lines = createInterface({
    input: createReadStream(join(projectDir, runEventsPath(runId))),
    crlfDelay: Infinity,
  });
  try {
    for await (const line of lines) {
      if (!INGEST_EVENT.test(line)) continue;
      const event = parseEvent(line);
      if (event === undefined) continue;
      const key = `${event.nodeId}\0${event.docPath}`;
      if (event.kind === 'summary') {
        open.delete(key);
        continue;
      }
      const started = open.get(key) ?? [];
      started.push({
        runId,
        nodeId: event.nodeId,
        docPath: event.docPath,
        planned: event.planned,
        plannedPaths: event.plannedPaths,
        ts: event.ts,
      });
      open.set(key, started);
    }
  } catch (error) {
    // A run without an event log (a bundle-imported or record-only run) has no ingest to judge.
    if (errnoOf(error) === 'ENOENT') return [];
    throw error;
  }
  return [...open.values()].flat();
}

interface IngestEvent {
  readonly kind: 'started' | 'summary';
  readonly nodeId: string;
  readonly docPath: string;
  readonly planned: number;
  readonly plannedPaths: readonly string[];
  readonly ts: string;
}

function parseEvent(line: string): IngestEvent | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    // A torn line is not an event; the events reader reports those.
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const fields = value as Record<string, unknown>;
  const { event, node_id: nodeId, doc_path: docPath } = fields;
  if (typeof nodeId !== 'string' || typeof docPath !== 'string') return undefined;
  if (event === 'ingest.summary') {
    // A dry run changes nothing on disk, so it completes nothing either.
    if (fields.dry_run === true) return undefined;
    return { kind: 'summary', nodeId, docPath, planned: 0, plannedPaths: [], ts: '' };
  }
  const paths = Array.isArray(fields.planned_paths)
    ? fields.planned_paths.filter((item): item is string => typeof item === 'string')
    : [];
  const planned = typeof fields.planned === 'number' ? fields.planned : paths.length;
  const ts = typeof fields.ts === 'string' ? fields.ts : '';
  return { kind: 'started', nodeId, docPath, planned, plannedPaths: paths, ts };
}
