import { runDir } from '../project/index.js';
import type { RunId } from '../project/index.js';

/** `.agent/runs/<run_id>/workflow.yaml`: the definition text pinned when the workflow started. */
export function workflowDefinitionPath(runId: RunId): string {
  return `${runDir(runId)}/workflow.yaml`;
}

/**
 * `.agent/runs/<run_id>/state.lock`: held only while one read-check-write of state.json runs; a file of its
 * own (not the runtime's `lock`, which a graph runner holds for the whole run).
 */
export function workflowStateLockPath(runId: RunId): string {
  return `${runDir(runId)}/state.lock`;
}
