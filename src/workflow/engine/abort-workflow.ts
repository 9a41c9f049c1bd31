import { startStepSpan } from '../../telemetry/index.js';
import { pushRunNow } from '../../fleet/index.js';
import type { ProjectRef } from '../../store/index.js';
import { updateWorkflowState } from '../state/index.js';
import { passOf, passField } from './step-position.js';
import { requireRunning, selectWorkflowRun } from './select-workflow-run.js';
import { revisionEventOf } from './workflow-events.js';
import type { WorkflowEngineDeps } from './workflow-engine-deps.js';
import { WorkflowError } from './workflow-error.js';
import { workflowStatusOf } from './workflow-status-response.js';
import type { WorkflowStatusResponse } from './workflow-status-response.js';

/** `workflow_abort`'s input (spec workflow-mcp.md). */
export interface AbortWorkflowRequest {
  readonly run_id?: string;
  /** Why, kept in the state and the `workflow.aborted` event. */
  readonly reason?: string;
}

/** Stops a running workflow (`status: aborted`, the run folder kept as its audit trail) and returns its final status. */
export async function abortWorkflow(
  projectDir: ProjectRef,
  request: AbortWorkflowRequest = {},
  deps: Pick<WorkflowEngineDeps, 'durability' | 'config' | 'now' | 'lockWaitMs' | 'remote'> = {},
): Promise<WorkflowStatusResponse> {
  if (request.reason !== undefined && typeof request.reason !== 'string') {
    throw new WorkflowError('invalid_request', 'reason must be text');
  }
  const { state, definition } = await selectWorkflowRun(projectDir, request.run_id);
  requireRunning(state, 'workflow_abort');
  const now = deps.now ?? (() => new Date());
  const at = now().toISOString();
  const reason = request.reason?.trim();
  const aborted = await updateWorkflowState(
    projectDir,
    state.run_id,
    state.revision,
    (current) => ({
      ...current,
      status: 'aborted',
      finished_at: at,
      ...(reason === undefined || reason === '' ? {} : { reason }),
    }),
    {
      durability: deps.durability ?? deps.config?.ingest.durability ?? 'fsync',
      now,
      ...(deps.lockWaitMs === undefined ? {} : { lockWaitMs: deps.lockWaitMs }),
      events: (next) => [
        revisionEventOf({
          level: 'INFO',
          event: 'workflow.aborted',
          fields: {
            workflow: next.workflow,
            step: next.step,
            ...passField(passOf(next)),
            ...(next.reason === undefined ? {} : { reason: next.reason }),
          },
        }),
      ],
    },
  );
  // The pass ends here: its live span, in the run's derived trace, says so (an abort is a choice, not an error).
  startStepSpan({
    runId: state.run_id,
    workflow: state.workflow,
    stepId: state.step,
    pass: passOf(state) ?? 1,
    startedAt: state.step_started_at,
  }).end({ status: 'aborted' });
  if (deps.remote !== undefined) {
    await pushRunNow({ project: projectDir, remote: deps.remote, runId: state.run_id });
  }
  return workflowStatusOf(aborted, definition);
}
