import type { ProjectRef } from '../../store/index.js';
import { parseRunId } from '../../project/index.js';
import { parseWorkflow } from '../definition/index.js';
import type { WorkflowDefinition } from '../definition/index.js';
import {
  listRunningWorkflows,
  readPinnedDefinition,
  readWorkflowState,
  recoverRevisionEvents,
} from '../state/index.js';
import type { WorkflowState } from '../state/index.js';
import { asRequestError, NOT_STARTED_MESSAGE, WorkflowError } from './workflow-error.js';
import { recoverWorkflowTerminal } from './workflow-terminal.js';

/** A run read from disk with the definition pinned in it. */
export interface SelectedRun {
  readonly state: WorkflowState;
  readonly definition: WorkflowDefinition;
}

/**
 * The run a call is about: `runId` when given (any status), else the one running workflow of the project;
 * none is `not_started` (the spec's sentence), several is `several_running` listing them. What a process killed
 * after writing the run's state left undone (its events, terminal.json) is done first (D89).
 */
export async function selectWorkflowRun(
  projectDir: ProjectRef,
  runId: string | undefined,
): Promise<SelectedRun> {
  let state: WorkflowState;
  if (runId !== undefined) {
    let parsed;
    try {
      parsed = parseRunId(runId, 'run_id');
    } catch (error) {
      throw asRequestError(error);
    }
    state = await readWorkflowState(projectDir, parsed);
  } else {
    const running = await listRunningWorkflows(projectDir);
    const [only] = running;
    if (only === undefined) throw new WorkflowError('not_started', NOT_STARTED_MESSAGE);
    if (running.length > 1) {
      const list = running.map((run) => `${run.run_id} (${run.workflow}, step ${run.step})`).join(', ');
      throw new WorkflowError(
        'several_running',
        `${String(running.length)} workflows are running: ${list}; pass run_id to say which one`,
      );
    }
    state = only;
  }
  state = await recoverRevisionEvents(projectDir, state);
  await recoverWorkflowTerminal(projectDir, state);
  const pinned = await readPinnedDefinition(projectDir, state);
  return { state, definition: parseWorkflow(pinned.text, state.definition_path) };
}

/** Refuses a call that changes a run which is no longer running. */
export function requireRunning(state: WorkflowState, call: string): void {
  if (state.status === 'running') return;
  throw new WorkflowError(
    'not_running',
    `workflow run ${state.run_id} is ${state.status}, so ${call} cannot change it; call workflow_start to start another`,
  );
}
