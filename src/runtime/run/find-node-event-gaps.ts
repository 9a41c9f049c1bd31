import type { ProjectRef } from '../../store/index.js';
import type { EventEntry } from '../../events/index.js';
import { readRunEvents } from '../../events/index.js';
import type { RunId } from '../../project/index.js';
import { readRunState } from './state/index.js';
import type { NodeState, RunState } from '../../runs/index.js';

/** A node status that ends an execution, and the event that says so. */
const ENDING_EVENTS = {
  completed: 'node.completed',
  failed: 'node.failed',
  skipped: 'node.skipped',
} as const;

/** The events that move a node through its lifecycle: the last one of a node must match its state. */
const LIFECYCLE_EVENTS: ReadonlySet<string> = new Set(['node.started', ...Object.values(ENDING_EVENTS)]);

/** A node that a graph run's state says ended, whose ending event events.jsonl does not hold (a kill between). */
export interface NodeEventGap {
  readonly runId: RunId;
  readonly nodeId: string;
  readonly status: keyof typeof ENDING_EVENTS;
  /** The ending event derived from the node's state, as a resume appends it (with `recovered: true`). */
  readonly derived: EventEntry;
}

/**
 * The nodes of `state` that ended (completed, failed, skipped) but whose last lifecycle event in the run's
 * events.jsonl is not that ending: the runner was killed between the transition that ended the node and its
 * event (D89). Each gap carries the event derived from the node's state.
 */
export async function findNodeEventGaps(projectDir: ProjectRef, state: RunState): Promise<NodeEventGap[]> {
  const ending = Object.entries(state.nodes).filter(
    (entry): entry is [string, NodeState & { status: keyof typeof ENDING_EVENTS }] =>
      Object.hasOwn(ENDING_EVENTS, entry[1].status),
  );
  if (ending.length === 0) return [];
  const last = new Map<string, string>();
  for await (const event of readRunEvents(projectDir, state.run_id, '"node.')) {
    const { event: name, node_id: nodeId } = event;
    if (typeof name === 'string' && typeof nodeId === 'string' && LIFECYCLE_EVENTS.has(name)) {
      last.set(nodeId, name);
    }
  }
  return ending
    .filter(([nodeId, node]) => last.get(nodeId) !== ENDING_EVENTS[node.status])
    .map(([nodeId, node]) => ({
      runId: state.run_id,
      nodeId,
      status: node.status,
      derived: derivedEvent(nodeId, node),
    }));
}

/** The graph runs of `runIds` with ended nodes whose events are missing. */
export async function findGraphEventGaps(
  projectDir: ProjectRef,
  runIds: readonly RunId[],
): Promise<NodeEventGap[]> {
  const gaps: NodeEventGap[] = [];
  for (const runId of runIds) {
    // A workflow run, an ingest run or an unreadable state is not a graph run to check here.
    const state = await readRunState(projectDir, runId).catch(() => undefined);
    if (state !== undefined) gaps.push(...(await findNodeEventGaps(projectDir, state)));
  }
  return gaps;
}

/** The ending event of a node as its state tells it: what the runner would have written, less what it alone knew. */
function derivedEvent(nodeId: string, node: NodeState & { status: keyof typeof ENDING_EVENTS }): EventEntry {
  const recovered = { node_id: nodeId, recovered: true };
  switch (node.status) {
    case 'completed': {
      const took =
        node.started_at === undefined || node.finished_at === undefined
          ? undefined
          : Date.parse(node.finished_at) - Date.parse(node.started_at);
      return {
        level: 'INFO',
        event: 'node.completed',
        fields: {
          ...recovered,
          ...(node.output_path === undefined ? {} : { output_path: node.output_path }),
          ...(node.output_sha256 === undefined ? {} : { sha256: node.output_sha256 }),
          ...(took === undefined || Number.isNaN(took) ? {} : { duration_ms: Math.max(0, took) }),
          ...(node.ingest === undefined ? {} : { ingest: node.ingest }),
          ...(node.contract === undefined
            ? {}
            : {
                contract: {
                  type: node.contract.type,
                  artifact: node.contract.artifact,
                  attempts: node.contract.attempts,
                },
              }),
        },
      };
    }
    case 'failed':
      return { level: 'ERROR', event: 'node.failed', fields: { ...recovered, ...node.error } };
    case 'skipped':
      return { level: 'WARNING', event: 'node.skipped', fields: { ...recovered, ...node.error } };
  }
}
