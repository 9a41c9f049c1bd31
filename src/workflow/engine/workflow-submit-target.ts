import type { ProjectRef } from '../../store/index.js';
import type { NodeId, RunId } from '../../project/index.js';
import { currentStep, passNodeId, passOf } from './step-position.js';
import { requireRunning, selectWorkflowRun } from './select-workflow-run.js';

/** Where a `submit_artifact` call to a workflow run lands: the run, the current pass's node id, the agent. */
export interface WorkflowSubmitTarget {
  readonly runId: RunId;
  /** The current pass's node id (`<step>` or `<step>-<pass>`), what completion detection reads back. */
  readonly taskId: NodeId;
  /** The step's agent, or `workflow`. */
  readonly agentId: string;
}

/**
 * The pass a submission to a workflow run belongs to: `runId` when given, else the one running workflow (as
 * every tool selects it); the run must be running. A graph run's id is `not_a_workflow_run` (the MCP server
 * then picks the graph's running node).
 */
export async function workflowSubmitTarget(
  projectDir: ProjectRef,
  runId: string | undefined,
): Promise<WorkflowSubmitTarget> {
  const { state, definition } = await selectWorkflowRun(projectDir, runId);
  requireRunning(state, 'submit_artifact');
  const step = currentStep(definition, state);
  return {
    runId: state.run_id,
    taskId: passNodeId(step.id, passOf(state)),
    agentId: step.agent ?? 'workflow',
  };
}
