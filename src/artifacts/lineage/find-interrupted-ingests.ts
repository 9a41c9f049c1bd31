import { readRunEvents } from '../../events/index.js';
import type { RunId } from '../../project/index.js';
import type { ProjectRef } from '../../store/index.js';

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

/**
 * Reads a run's events.jsonl and returns each ingest that started and never summarised: an ingest is complete
 * once any later `ingest.summary` of the same node and document exists (a re-run or a resume completes it).
 */
export async function findInterruptedIngests(
  project: ProjectRef,
  runId: RunId,
): Promise<InterruptedIngest[]> {
  const open = new Map<string, InterruptedIngest[]>();
  // Only ingest lines are parsed: a run's event log can be long, and every other event is irrelevant here. A run
  // without an event log (a bundle-imported or record-only run) has no ingest to judge.
  for await (const fields of readRunEvents(project, runId, '"ingest.')) {
    const event = ingestEventOf(fields);
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

function ingestEventOf(fields: Readonly<Record<string, unknown>>): IngestEvent | undefined {
  const { event, node_id: nodeId, doc_path: docPath } = fields;
  if (typeof nodeId !== 'string' || typeof docPath !== 'string') return undefined;
  if (event === 'ingest.summary') {
    // A dry run changes nothing on disk, so it completes nothing either.
    if (fields.dry_run === true) return undefined;
    return { kind: 'summary', nodeId, docPath, planned: 0, plannedPaths: [], ts: '' };
  }
  if (event !== 'ingest.started') return undefined;
  const paths = Array.isArray(fields.planned_paths)
    ? fields.planned_paths.filter((item): item is string => typeof item === 'string')
    : [];
  const planned = typeof fields.planned === 'number' ? fields.planned : paths.length;
  const ts = typeof fields.ts === 'string' ? fields.ts : '';
  return { kind: 'started', nodeId, docPath, planned, plannedPaths: paths, ts };
}
