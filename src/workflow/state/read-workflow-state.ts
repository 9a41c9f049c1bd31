import { describeSchemaIssues } from '../../config/index.js';
import { describeError, runDir, runStatePath, UnknownRunError } from '../../project/index.js';
import type { RunId } from '../../project/index.js';
import { usingProject } from '../../store/index.js';
import type { ProjectRef, ProjectStore } from '../../store/index.js';
import { WorkflowStateError } from './workflow-state-error.js';
import { workflowStateSchema } from '../../runs/index.js';
import type { WorkflowState } from '../../runs/index.js';

/**
 * Reads and checks a workflow run's state.json; throws {@link UnknownRunError} when the run's folder does not
 * exist, and {@link WorkflowStateError} `not_a_workflow_run` or `state_unreadable` (naming the file) otherwise.
 */
export async function readWorkflowState(project: ProjectRef, runId: RunId): Promise<WorkflowState> {
  return usingProject(project, ({ store }) => readStoredWorkflowState(store, runId));
}

async function readStoredWorkflowState(store: ProjectStore, runId: RunId): Promise<WorkflowState> {
  const relative = runStatePath(runId);
  let text: string | undefined;
  try {
    text = await store.readText(relative);
  } catch (error) {
    throw new WorkflowStateError('state_unreadable', `cannot read ${relative}: ${describeError(error)}`, {
      cause: error,
    });
  }
  if (text === undefined) {
    if (!(await holdsAnything(store, runDir(runId)))) throw new UnknownRunError(runId);
    throw new WorkflowStateError(
      'not_a_workflow_run',
      `run ${runId} has no ${relative}: it is not a workflow run (or its start was interrupted); start a workflow with another run id`,
    );
  }
  const state = parseWorkflowState(text, relative);
  // Writes go to the folder the state names: a state copied into another run's folder must not be used.
  if (state.run_id !== runId) {
    throw new WorkflowStateError(
      'state_unreadable',
      `${relative} names run ${state.run_id}, not ${runId}; it was copied from another run's folder`,
    );
  }
  return state;
}

/** Parses state.json text; throws {@link WorkflowStateError} naming `file` and every issue. */
export function parseWorkflowState(text: string, file: string): WorkflowState {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new WorkflowStateError(
      'state_unreadable',
      `${file} is not valid JSON (${(error as Error).message}); it was not written by the workflow engine or was edited by hand`,
      { cause: error },
    );
  }
  if (isObject(json) && json['kind'] !== 'workflow' && 'graph' in json) {
    throw new WorkflowStateError(
      'not_a_workflow_run',
      `${file} belongs to a graph run, not a workflow; inspect it with 'artifact-ingest show' or resume it with 'artifact-ingest run'`,
    );
  }
  const checked = workflowStateSchema.safeParse(json);
  if (!checked.success) {
    const issues = describeSchemaIssues(checked.error.issues);
    throw new WorkflowStateError(
      'state_unreadable',
      `${file} is not a valid workflow state (version 1): ${issues}`,
    );
  }
  return checked.data;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Whether the store holds anything below `folder` (a folder exists while something is stored below it). */
async function holdsAnything(store: ProjectStore, folder: string): Promise<boolean> {
  return (await store.list(folder).catch(() => [])).length > 0;
}
