import { DEFAULT_MAX_FIX_ATTEMPTS, judgeCompletion } from '../../../contracts/index.js';
import type { AttemptSubmission, BudgetName, Budgets } from '../../../contracts/index.js';
import type { WorkflowStep } from '../../definition/index.js';
import type { WorkflowContractState, WorkflowState } from '../../state/index.js';

/** What ends a workflow before its last step: a budget that ran out, or a contract that blocked. */
export type WorkflowFailure =
  | { readonly kind: 'budget_exceeded'; readonly budget: BudgetName; readonly reason: string }
  | { readonly kind: 'blocked'; readonly reason: string; readonly artifact: string | null };

/** The verdict on a pass of a step with `contract:` (a step without one is always `done`). */
export type StepContractVerdict =
  | { readonly verdict: 'done'; readonly contract?: WorkflowContractState }
  | { readonly verdict: 'fix_needed'; readonly contract: WorkflowContractState }
  | {
      readonly verdict: 'failed';
      readonly contract: WorkflowContractState;
      readonly failure: WorkflowFailure;
    };

/** How many fix requests a pass may get: the workflow's `max_fix_attempts`, else 2. */
export function maxFixAttemptsOf(budgets: Budgets): number {
  return budgets.max_fix_attempts ?? DEFAULT_MAX_FIX_ATTEMPTS;
}

/**
 * Judges the pass's submissions against the step's contract (spec contracts.md, "Completion detection"): done,
 * another fix request while `max_fix_attempts` allows one, or failed: `blocked` by the artifact, or
 * `budget_exceeded` once the fix requests are used up.
 */
export function judgeStepContract(
  step: WorkflowStep,
  state: WorkflowState,
  budgets: Budgets,
  submissions: readonly AttemptSubmission[],
): StepContractVerdict {
  if (step.contract === undefined) return { verdict: 'done' };
  const type = step.contract;
  // The agent answered: over MCP the call itself is the agent returning.
  const completion = judgeCompletion({ contract: type, agent: { returned: true }, submissions });
  const asked = state.contract?.state === 'fix_needed' ? state.contract.fix_attempt : 0;
  switch (completion.state) {
    case 'done':
      return {
        verdict: 'done',
        contract: { type, state: 'done', fix_attempt: asked, errors: [], artifact: completion.artifact },
      };
    case 'blocked': {
      const contract: WorkflowContractState = {
        type,
        state: 'blocked',
        fix_attempt: asked,
        reason: completion.reason,
        errors: [],
        ...(completion.artifact === null ? {} : { artifact: completion.artifact }),
      };
      return {
        verdict: 'failed',
        contract,
        failure: {
          kind: 'blocked',
          reason: `step ${step.id}: ${completion.reason}`,
          artifact: completion.artifact,
        },
      };
    }
    case 'fix_needed': {
      const max = maxFixAttemptsOf(budgets);
      const contract = (fixAttempt: number): WorkflowContractState => ({
        type,
        state: 'fix_needed',
        fix_attempt: fixAttempt,
        reason: completion.reason,
        errors: completion.errors.map((error) => ({ ...error })),
      });
      if (asked >= max) {
        return {
          verdict: 'failed',
          contract: contract(asked),
          failure: {
            kind: 'budget_exceeded',
            budget: 'max_fix_attempts',
            reason: `step ${step.id} did not satisfy its ${type} contract after ${String(asked)} fix request${asked === 1 ? '' : 's'} (max_fix_attempts: ${String(max)}): ${completion.reason}`,
          },
        };
      }
      return { verdict: 'fix_needed', contract: contract(asked + 1) };
    }
  }
}

/**
 * The budget that is spent when the workflow would hand out another pass (or fix request): `max_agent_calls`
 * once that many `workflow_advance` calls were made, `max_minutes` once that much time passed since the start.
 */
export function spentBudget(
  budgets: Budgets,
  calls: number,
  startedAt: string,
  at: Date,
): Extract<WorkflowFailure, { kind: 'budget_exceeded' }> | undefined {
  if (budgets.max_agent_calls !== undefined && calls >= budgets.max_agent_calls) {
    return {
      kind: 'budget_exceeded',
      budget: 'max_agent_calls',
      reason: `max_agent_calls: ${String(calls)} of ${String(budgets.max_agent_calls)} workflow_advance calls were made and the work is not finished`,
    };
  }
  const elapsedMs = at.getTime() - Date.parse(startedAt);
  if (budgets.max_minutes !== undefined && elapsedMs > budgets.max_minutes * 60_000) {
    return {
      kind: 'budget_exceeded',
      budget: 'max_minutes',
      reason: `max_minutes: ${(elapsedMs / 60_000).toFixed(1)} minutes have passed since the start, more than ${String(budgets.max_minutes)}`,
    };
  }
  return undefined;
}
