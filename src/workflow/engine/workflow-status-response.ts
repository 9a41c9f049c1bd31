import { fixRequest } from '../../contracts/index.js';
import type { ContractType, FieldError, TerminalState } from '../../contracts/index.js';
import { assembleInstructions } from '../definition/index.js';
import type { WorkflowDefinition, WorkflowStepType } from '../definition/index.js';
import type {
  WorkflowCompletionSummary,
  WorkflowState,
  WorkflowStatus,
  WorkflowTask,
} from '../state/index.js';
import { maxFixAttemptsOf } from './advance/index.js';
import { currentStep, passValues } from './step-position.js';
import type { WorkflowReconciliation } from './workflow-engine-deps.js';
import { WorkflowError } from './workflow-error.js';

/** What the agent is told to call next, and with what (seed 003: the step's `save_as`, else `response`). */
export interface NextAction {
  readonly tool: string;
  readonly expecting: string;
}

/** Where the current pass stands against its step's `contract:` (spec contracts.md, "Completion detection"). */
export interface WorkflowContractStatus {
  readonly type: ContractType;
  /** `pending` until the pass is judged; `fix_needed` while it is re-asked; `done` or `blocked` once judged. */
  readonly state: 'pending' | 'fix_needed' | 'done' | 'blocked';
  /** Fix requests sent in this pass so far. */
  readonly fix_attempt: number;
  /** How many the workflow's `max_fix_attempts` allows (default 2). */
  readonly max_fix_attempts: number;
  /** Every field error of the latest refused submission of the type, when that is why it is not done. */
  readonly errors: readonly FieldError[];
  /** Why it is not done, in one line. */
  readonly reason?: string;
  /** The artifact that satisfied or blocked it, project-relative. */
  readonly artifact?: string;
}

/**
 * The status of a workflow run (spec workflow-mcp.md: seed 000's `WorkflowStatusResponse` and seed 003's step
 * result), returned by `workflow_start`, `workflow_status`, `workflow_advance` and `workflow_abort`.
 */
export interface WorkflowStatusResponse {
  readonly run_id: string;
  readonly workflow: string;
  readonly status: WorkflowStatus;
  readonly step: string;
  readonly stepType: WorkflowStepType;
  /** 1-based position of the step. */
  readonly step_number: number;
  readonly total_steps: number;
  /** The sub-agent the step is delegated to, or null. */
  readonly agent: string | null;
  readonly delegate: boolean;
  /** The assembled instructions of the current pass (a sentence saying what to do once not running). */
  readonly instructions: string;
  readonly next_action: NextAction;
  /** Steps finished so far, of all. */
  readonly progress: { readonly completed: number; readonly total: number };
  /** A loop's current task: 1-based `index`, `total`, and the item. */
  readonly task?: WorkflowTask;
  /** A loop's task or a ralph's iteration, 1-based, and how many. */
  readonly subStepIndex?: number;
  readonly totalSubSteps?: number;
  readonly ralphIteration?: number;
  readonly ralphTotal?: number;
  /** Files registered in the run so far, project-relative. */
  readonly artefacts: readonly string[];
  /** Declared versus observed for the current pass, when an observer is present. */
  readonly reconciliation?: WorkflowReconciliation;
  /** The current step's contract, when it declares one. */
  readonly contract?: WorkflowContractStatus;
  /** Why the workflow failed or was aborted. */
  readonly reason?: string;
  /** The run's one terminal state, once it completed or failed (never for an abort). */
  readonly terminal?: TerminalState;
}

/** What `workflow_advance` returns when the workflow completes (seed 003). */
export interface WorkflowCompletion {
  readonly run_id: string;
  readonly status: 'complete';
  readonly summary: WorkflowCompletionSummary;
  /** The terminal state the completion declared (`done`, with the artifact a reviewer reads). */
  readonly terminal?: TerminalState;
}

/** The tool a workflow that no longer runs points to. */
const START_AGAIN: NextAction = { tool: 'workflow_start', expecting: 'workflow' };

/**
 * The status of `state` under its pinned `definition`: the current pass's instructions rendered afresh (so
 * `{artefacts}` shows every registration); throws `step_blocked` if they cannot be rendered.
 */
export function workflowStatusOf(
  state: WorkflowState,
  definition: WorkflowDefinition,
  reconciliation?: WorkflowReconciliation,
): WorkflowStatusResponse {
  const step = currentStep(definition, state);
  const running = state.status === 'running';
  const total = definition.steps.length;
  const base = {
    run_id: state.run_id,
    workflow: state.workflow,
    status: state.status,
    step: step.id,
    stepType: step.type,
    step_number: state.step_index + 1,
    total_steps: total,
    agent: step.agent ?? null,
    delegate: step.agent !== undefined,
    instructions: running ? instructionsOf(state, definition) : stoppedSentence(state),
    next_action: running ? { tool: step.nextAction, expecting: step.saveAs ?? 'response' } : START_AGAIN,
    progress: { completed: state.status === 'complete' ? total : state.step_index, total },
  };
  const pass =
    state.task !== undefined
      ? { task: state.task, subStepIndex: state.task.index, totalSubSteps: state.task.total }
      : step.type === 'ralph' && state.ralphIteration !== undefined
        ? {
            subStepIndex: state.ralphIteration,
            totalSubSteps: step.n,
            ralphIteration: state.ralphIteration,
            ralphTotal: step.n,
          }
        : {};
  const contract = contractStatusOf(state, definition);
  return {
    ...base,
    ...pass,
    artefacts: [...state.artefacts],
    ...(reconciliation === undefined ? {} : { reconciliation }),
    ...(contract === undefined ? {} : { contract }),
    ...(state.status !== 'running' && state.reason !== undefined ? { reason: state.reason } : {}),
    ...(state.terminal === undefined ? {} : { terminal: state.terminal }),
  };
}

/** The current step's contract: the state's verdict on this pass, or `pending` until there is one. */
function contractStatusOf(
  state: WorkflowState,
  definition: WorkflowDefinition,
): WorkflowContractStatus | undefined {
  const type = currentStep(definition, state).contract;
  if (type === undefined) return undefined;
  const max_fix_attempts = maxFixAttemptsOf(definition.budgets);
  const verdict = state.contract;
  if (verdict === undefined) return { type, state: 'pending', fix_attempt: 0, max_fix_attempts, errors: [] };
  return {
    type: verdict.type,
    state: verdict.state,
    fix_attempt: verdict.fix_attempt,
    max_fix_attempts,
    errors: verdict.errors.map((error) => ({ ...error })),
    ...(verdict.reason === undefined ? {} : { reason: verdict.reason }),
    ...(verdict.artifact === undefined ? {} : { artifact: verdict.artifact }),
  };
}

/** The pass's instructions; while it is re-asked, followed by the fix request (the exact field errors). */
function instructionsOf(state: WorkflowState, definition: WorkflowDefinition): string {
  const step = currentStep(definition, state);
  const rendered = assembleInstructions(step, passValues(state.run_id, step, state, state));
  const verdict = state.contract;
  if (rendered.ok && verdict?.state === 'fix_needed') {
    const request = fixRequest(
      verdict.type,
      {
        state: 'fix_needed',
        reason: verdict.reason ?? 'the contract is not satisfied',
        errors: verdict.errors,
      },
      { number: verdict.fix_attempt, of: maxFixAttemptsOf(definition.budgets) },
    );
    return `${rendered.text}\n\n${request}`;
  }
  if (rendered.ok) return rendered.text;
  throw new WorkflowError(
    'step_blocked',
    `the instructions of step ${step.id} cannot be rendered: ${rendered.message}`,
  );
}

function stoppedSentence(state: WorkflowState): string {
  switch (state.status) {
    case 'complete':
      return `Workflow ${state.workflow} (run ${state.run_id}) is complete. Call workflow_start to start another.`;
    case 'aborted':
    case 'failed':
      return `Workflow ${state.workflow} (run ${state.run_id}) was ${state.status}${state.reason === undefined ? '' : `: ${state.reason}`}. Call workflow_start to start another.`;
    case 'running':
      return '';
  }
}
