import { passOf, passField } from './step-position.js';
import { selectWorkflowRun } from './select-workflow-run.js';
import type { WorkflowEngineDeps } from './workflow-engine-deps.js';
import { workflowStatusOf } from './workflow-status-response.js';
import type { WorkflowStatusResponse } from './workflow-status-response.js';

/** `workflow_status`'s input (spec workflow-mcp.md). */
export interface WorkflowStatusRequest {
  /** Left out: the one running workflow of the project. */
  readonly run_id?: string;
}

/** The status of a run, read from its state.json and pinned definition; changes nothing. */
export async function workflowStatus(
  projectDir: string,
  request: WorkflowStatusRequest = {},
  deps: Pick<WorkflowEngineDeps, 'observer'> = {},
): Promise<WorkflowStatusResponse> {
  const { state, definition } = await selectWorkflowRun(projectDir, request.run_id);
  const reconciliation =
    state.status === 'running'
      ? await deps.observer?.observe?.({
          projectDir,
          runId: state.run_id,
          step: state.step,
          ...passField(passOf(state)),
          startedAt: state.step_started_at,
          artefacts: state.artefacts,
        })
      : undefined;
  return workflowStatusOf(state, definition, reconciliation);
}
