import type { AttemptSubmission } from '../../../contracts/index.js';
import { assembleInstructions } from '../../definition/index.js';
import type { WorkflowDefinition, WorkflowStep } from '../../definition/index.js';
import type { WorkflowContractState, WorkflowState } from '../../state/index.js';
import { judgeStepContract, spentBudget } from './judge-step-contract.js';
import type { WorkflowFailure } from './judge-step-contract.js';
import { completedState, failedState, movedState, savedOutputs } from './next-workflow-state.js';
import { currentStep, nextPosition, passValues } from '../step-position.js';
import { WorkflowError } from '../workflow-error.js';

/** What an advance does to the run, decided before anything is written. */
export type AdvancePlan =
  /** The pass is done: the next pass starts. */
  | { readonly kind: 'moved'; readonly proposed: WorkflowState; readonly contract?: WorkflowContractState }
  /** The pass is done and was the last: the workflow completes (terminal `done`). */
  | { readonly kind: 'complete'; readonly proposed: WorkflowState; readonly contract?: WorkflowContractState }
  /** The contract is not satisfied: the same pass is asked again with a fix request. */
  | {
      readonly kind: 'fix_needed';
      readonly proposed: WorkflowState;
      readonly contract: WorkflowContractState;
    }
  /** A contract blocked, or a budget ran out: the workflow fails (terminal `blocked` or `budget_exceeded`). */
  | {
      readonly kind: 'failed';
      readonly proposed: WorkflowState;
      readonly contract?: WorkflowContractState;
      readonly failure: WorkflowFailure;
      /** Whether the pass itself was done (a budget ran out before the next one). */
      readonly passDone: boolean;
    };

/**
 * Decides what an advance does, before anything is written: judge the pass's contract, count the call against
 * the budgets, then move to the next pass, complete, ask for a fix, or fail.
 */
export function planAdvance(
  definition: WorkflowDefinition,
  state: WorkflowState,
  step: WorkflowStep,
  output: string | undefined,
  submissions: readonly AttemptSubmission[],
  at: Date,
): AdvancePlan {
  const verdict = judgeStepContract(step, state, definition.budgets, submissions);
  const counted: WorkflowState = { ...state, agent_calls: state.agent_calls + 1 };
  const spent = (): WorkflowFailure | undefined =>
    spentBudget(definition.budgets, counted.agent_calls, state.started_at, at);
  const failed = (
    failure: WorkflowFailure,
    outputs: WorkflowState['outputs'],
    contract: WorkflowContractState | undefined,
    passDone: boolean,
  ): AdvancePlan => ({
    kind: 'failed',
    proposed: failedState(counted, outputs, contract, failure.reason, at),
    failure,
    passDone,
    ...(contract === undefined ? {} : { contract }),
  });
  switch (verdict.verdict) {
    case 'failed':
      return failed(verdict.failure, state.outputs, verdict.contract, false);
    case 'fix_needed': {
      const budget = spent();
      if (budget !== undefined) {
        // No fix request goes out: the contract stays at the requests already sent.
        const contract = { ...verdict.contract, fix_attempt: verdict.contract.fix_attempt - 1 };
        return failed(budget, state.outputs, contract, false);
      }
      return {
        kind: 'fix_needed',
        proposed: { ...counted, contract: verdict.contract },
        contract: verdict.contract,
      };
    }
    case 'done': {
      const outputs = savedOutputs(state, step, output);
      const next = nextPosition(definition, state, { inputs: state.inputs, outputs, tasks: state.tasks });
      const contract = verdict.contract;
      if (next === 'end') {
        return {
          kind: 'complete',
          proposed: completedState(counted, definition, outputs, contract, at),
          ...(contract === undefined ? {} : { contract }),
        };
      }
      const budget = spent();
      if (budget !== undefined) return failed(budget, outputs, contract, true);
      const proposed = movedState(counted, next, outputs, at);
      checkRenders(definition, proposed);
      return { kind: 'moved', proposed, ...(contract === undefined ? {} : { contract }) };
    }
  }
}

/** The next pass must render with the outputs so far; otherwise the agent resubmits, nothing is changed. */
function checkRenders(definition: WorkflowDefinition, proposed: WorkflowState): void {
  const step = currentStep(definition, proposed);
  const rendered = assembleInstructions(step, passValues(proposed.run_id, step, proposed, proposed));
  if (!rendered.ok) {
    throw new WorkflowError(
      'step_blocked',
      `step ${step.id} cannot start with the outputs so far: ${rendered.message}; nothing was changed: call workflow_advance again with an output that provides it`,
    );
  }
}
