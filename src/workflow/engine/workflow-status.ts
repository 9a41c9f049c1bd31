import type { ProjectRef } from '../../store/index.js';
import { engineObserver, observedPassOf, publicReconciliation } from './create-workflow-observer.js';
import { selectWorkflowRun } from './select-workflow-run.js';
import type { WorkflowEngineDeps } from './workflow-engine-deps.js';
import { workflowStatusOf } from './workflow-status-response.js';
import type { WorkflowStatusResponse } from './workflow-status-response.js';

/** `workflow_status`'s input (spec workflow-mcp.md). */
export interface WorkflowStatusRequest {
  /** Left out: the one running workflow of the project. */
  readonly run_id?: string;
}

/**
 * The status of a run, read from its state.json and pinned definition, with the current pass's reconciliation
 * (declared versus observed so far) while it runs; changes nothing.
 */
export async function workflowStatus(
  projectDir: ProjectRef,
  request: WorkflowStatusRequest = {},
  deps: Pick<WorkflowEngineDeps, 'observer' | 'snapshots' | 'durability' | 'config'> = {},
): Promise<WorkflowStatusResponse> {
  const { state, definition } = await selectWorkflowRun(projectDir, request.run_id);
  const reconciliation =
    state.status === 'running'
      ? await engineObserver(deps)?.observe?.(observedPassOf(projectDir, state))
      : undefined;
  return workflowStatusOf(state, definition, publicReconciliation(reconciliation));
}
