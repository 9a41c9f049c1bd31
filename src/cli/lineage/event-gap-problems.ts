import type { RunId } from '../../project/index.js';
import { findGraphEventGaps } from '../../runtime/index.js';
import type { NodeEventGap } from '../../runtime/index.js';
import { findWorkflowEventGaps } from '../../workflow/index.js';
import type { WorkflowEventGap } from '../../workflow/index.js';
import type { ProjectRef } from '../../store/index.js';

/** A run whose state says more happened than its events.jsonl holds: a process killed between the two (D89). */
export interface EventGapProblem {
  readonly code: 'events_gap';
  readonly severity: 'error';
  readonly message: string;
  readonly runId: string;
  /** The graph node whose ending event is missing. */
  readonly nodeId?: string;
  /** The events the state calls for that events.jsonl lacks. */
  readonly missingEvents: readonly string[];
}

/**
 * `verify`'s check of the runs above the records: each workflow run's state.json against its events.jsonl and
 * terminal.json, each graph run's ended nodes against their ending events. Reads only.
 */
export async function findEventGapProblems(
  project: ProjectRef,
  runIds: readonly RunId[],
): Promise<EventGapProblem[]> {
  return [
    ...(await findWorkflowEventGaps(project, runIds)).map(workflowGapProblem),
    ...(await findGraphEventGaps(project, runIds)).map(nodeGapProblem),
  ];
}

function workflowGapProblem(gap: WorkflowEventGap): EventGapProblem {
  const lacking = [
    ...(gap.missingEvents.length === 0 ? [] : [`events.jsonl lacks its ${gap.missingEvents.join(', ')}`]),
    ...(gap.missingTerminal === undefined ? [] : [`${gap.missingTerminal} is missing`]),
  ].join(' and ');
  return {
    code: 'events_gap',
    severity: 'error',
    message: `workflow run ${gap.runId}: state.json is at revision ${String(gap.revision)} but ${lacking}: a process was killed after writing the state; any workflow call on the run ('artifact-ingest workflow status ${gap.runId}') appends them, marked recovered`,
    runId: gap.runId,
    missingEvents: gap.missingEvents,
  };
}

function nodeGapProblem(gap: NodeEventGap): EventGapProblem {
  return {
    code: 'events_gap',
    severity: 'error',
    message: `graph run ${gap.runId}: node ${gap.nodeId} is ${gap.status} in its state but events.jsonl has no ${gap.derived.event} for it: the runner was killed in between; 'artifact-ingest run --resume ${gap.runId}' appends it, marked recovered`,
    runId: gap.runId,
    nodeId: gap.nodeId,
    missingEvents: [gap.derived.event],
  };
}
