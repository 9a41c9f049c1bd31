import type { WorkflowDefinition, WorkflowStep } from '../../definition/index.js';
import type { WorkflowContractState, WorkflowState } from '../../state/index.js';
import type { StepPosition } from '../step-position.js';

/** The outputs after this pass: an action or ralph step keeps the latest text, a loop the list of its passes. */
export function savedOutputs(
  state: WorkflowState,
  step: WorkflowStep,
  output: string | undefined,
): WorkflowState['outputs'] {
  if (step.saveAs === undefined || output === undefined) return state.outputs;
  if (step.type !== 'loop') return { ...state.outputs, [step.saveAs]: output };
  const earlier = state.outputs[step.saveAs];
  const kept: readonly string[] = (state.task?.index ?? 1) > 1 && typeof earlier === 'object' ? earlier : [];
  return { ...state.outputs, [step.saveAs]: [...kept, output] };
}

/** The state at the next pass: a new declared-versus-observed window and a contract not judged yet. */
export function movedState(
  state: WorkflowState,
  next: StepPosition,
  outputs: WorkflowState['outputs'],
  at: Date,
): WorkflowState {
  // Rebuilt without the pass's own fields, so one of the previous step or pass never lingers.
  const rest = Object.fromEntries(
    Object.entries(state).filter(([key]) => key !== 'task' && key !== 'ralphIteration' && key !== 'contract'),
  ) as Omit<WorkflowState, 'task' | 'ralphIteration' | 'contract'>;
  return {
    ...rest,
    step: next.step,
    stepType: next.stepType,
    step_index: next.step_index,
    step_started_at: at.toISOString(),
    tasks: next.tasks,
    outputs,
    // A new pass: its declared-versus-observed window starts with nothing claimed.
    step_artefacts: [],
    ...(next.task === undefined ? {} : { task: next.task }),
    ...(next.ralphIteration === undefined ? {} : { ralphIteration: next.ralphIteration }),
  };
}

/** The state of a completed workflow with its summary (seed 003); the terminal is added under the lock. */
export function completedState(
  state: WorkflowState,
  definition: WorkflowDefinition,
  outputs: WorkflowState['outputs'],
  contract: WorkflowContractState | undefined,
  at: Date,
): WorkflowState {
  return {
    ...state,
    status: 'complete',
    outputs,
    finished_at: at.toISOString(),
    ...(contract === undefined ? {} : { contract }),
    summary: {
      workflow: definition.name,
      completed_at: at.toISOString(),
      duration_ms: Math.max(0, at.getTime() - Date.parse(state.started_at)),
      steps_completed: definition.steps.length,
      results: outputs,
    },
  };
}

/** The state of a workflow that failed at its current pass: a contract blocked it or a budget ran out. */
export function failedState(
  state: WorkflowState,
  outputs: WorkflowState['outputs'],
  contract: WorkflowContractState | undefined,
  reason: string,
  at: Date,
): WorkflowState {
  return {
    ...state,
    status: 'failed',
    outputs,
    reason,
    finished_at: at.toISOString(),
    ...(contract === undefined ? {} : { contract }),
  };
}
