import type { BudgetName } from './budgets.js';
import type { ContractType } from '../types/index.js';
import type { TerminalState } from './terminal-state.js';

/** How a run ended, as its executor saw it: what ran out, what blocked, what failed, what was submitted. */
export interface RunEnding {
  readonly budgetExceeded?: { readonly budget: BudgetName; readonly reason: string };
  readonly regression?: { readonly reason: string; readonly artifact: string };
  /** A contract that blocked (a blocker issue, a rejected decision, failed smoke tests, a failed outcome). */
  readonly blocked?: { readonly reason: string; readonly artifact: string | null };
  /** A failure outside any contract: an agent error on a node without one, a template that cannot render. */
  readonly failed?: { readonly reason: string };
  /** The run's accepted submissions, oldest first (the path a reviewer would open). */
  readonly submissions: readonly { readonly type: ContractType; readonly path: string }[];
}

/**
 * The one terminal state of an ended run (spec contracts.md): `regression` before `budget_exceeded` before
 * `blocked`; a failure outside any contract is `blocked` with its reason; otherwise `done`. The artifact is the
 * one a reviewer reads: the regressed smoke result, the latest artifact, the blocking one (or the latest
 * `issues`), the latest `development_result` (or the latest artifact) when done.
 */
export function chooseTerminal(ending: RunEnding, at: Date): TerminalState {
  const latest = (type?: ContractType): string | null =>
    ending.submissions.filter((submission) => type === undefined || submission.type === type).at(-1)?.path ??
    null;
  const when = at.toISOString();
  if (ending.regression !== undefined) {
    return {
      state: 'regression',
      artifact: ending.regression.artifact,
      reason: ending.regression.reason,
      at: when,
    };
  }
  if (ending.budgetExceeded !== undefined) {
    return { state: 'budget_exceeded', artifact: latest(), reason: ending.budgetExceeded.reason, at: when };
  }
  if (ending.blocked !== undefined) {
    return {
      state: 'blocked',
      artifact: ending.blocked.artifact ?? latest('issues'),
      reason: ending.blocked.reason,
      at: when,
    };
  }
  if (ending.failed !== undefined) {
    return { state: 'blocked', artifact: latest('issues'), reason: ending.failed.reason, at: when };
  }
  return {
    state: 'done',
    artifact: latest('development_result') ?? latest('fix_result') ?? latest(),
    reason: ending.submissions.length === 0 ? 'every node completed' : 'every contract satisfied',
    at: when,
  };
}
