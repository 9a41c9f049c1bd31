import { DEFAULT_MAX_FIX_ATTEMPTS } from '../../contracts/index.js';
import type { BudgetName, Budgets } from '../../contracts/index.js';
import type { RunBudgetsState } from '../../runs/index.js';

/** A budget that ran out: which, and why in one line. */
export interface ExceededBudget {
  readonly budget: BudgetName;
  readonly reason: string;
}

/** The budgets of one run invocation (spec contracts.md, "Budgets and the terminal state"). */
export interface RunBudget {
  /** How many fix re-asks a `fix_needed` node gets. */
  readonly maxFixAttempts: number;
  /**
   * Counts one agent call of `nodeId`; false, and the run's budget is exceeded, when it would go past
   * max_agent_calls (the agent is then not asked).
   */
  takeAgentCall(nodeId: string): boolean;
  /** Marks a budget as run out (the first one wins). */
  exceed(exceeded: ExceededBudget): void;
  /** The first budget that ran out in this invocation, if any. */
  exceeded(): ExceededBudget | undefined;
  /** The limits and their use, for state.json and the terminal event. */
  state(): RunBudgetsState;
  /** Stops the max_minutes timer. */
  dispose(): void;
}

/** Options of {@link startRunBudget}. */
export interface RunBudgetOptions {
  readonly budgets: Budgets;
  /** Agent calls already made by earlier invocations of the run (a resume keeps counting). */
  readonly agentCallsBefore: number;
  /** Called once when max_minutes runs out: the run aborts its running agents and stops scheduling. */
  readonly onMinutesOut: (exceeded: ExceededBudget) => void;
  /** Monotonic milliseconds, for tests. */
  readonly clock?: () => number;
}

/** The graph's budgets with the CLI's overrides applied (an override replaces the graph's value). */
export function effectiveBudgets(
  graph: Budgets | undefined,
  overrides: { readonly maxMinutes?: number; readonly maxAgentCalls?: number } | undefined,
): Budgets {
  const maxMinutes = overrides?.maxMinutes ?? graph?.max_minutes;
  const maxAgentCalls = overrides?.maxAgentCalls ?? graph?.max_agent_calls;
  return {
    ...(maxMinutes === undefined ? {} : { max_minutes: maxMinutes }),
    ...(maxAgentCalls === undefined ? {} : { max_agent_calls: maxAgentCalls }),
    max_fix_attempts: graph?.max_fix_attempts ?? DEFAULT_MAX_FIX_ATTEMPTS,
  };
}

/** Starts the budgets of one invocation: max_minutes counts from now, agent calls from `agentCallsBefore`. */
export function startRunBudget(options: RunBudgetOptions): RunBudget {
  const { budgets } = options;
  const clock = options.clock ?? (() => performance.now());
  const startedMs = clock();
  let agentCalls = options.agentCallsBefore;
  let exceeded: ExceededBudget | undefined;
  const exceed = (next: ExceededBudget): void => {
    exceeded ??= next;
  };
  const maxMinutes = budgets.max_minutes;
  // setTimeout holds at most 2^31-1 ms (about 24.8 days); a longer budget never runs out within one invocation.
  const timer =
    maxMinutes === undefined || maxMinutes * 60_000 > 2 ** 31 - 1
      ? undefined
      : setTimeout(() => {
          const minutesOut: ExceededBudget = {
            budget: 'max_minutes',
            reason: `max_minutes ran out: this invocation ran for ${String(maxMinutes)} minute${maxMinutes === 1 ? '' : 's'}; running agents were stopped`,
          };
          exceed(minutesOut);
          options.onMinutesOut(minutesOut);
        }, maxMinutes * 60_000);
  // The timer must not keep a finished CLI alive.
  timer?.unref();
  return {
    maxFixAttempts: budgets.max_fix_attempts ?? DEFAULT_MAX_FIX_ATTEMPTS,
    takeAgentCall(nodeId) {
      if (exceeded !== undefined) return false;
      const limit = budgets.max_agent_calls;
      if (limit !== undefined && agentCalls + 1 > limit) {
        exceed({
          budget: 'max_agent_calls',
          reason: `max_agent_calls ran out: ${String(limit)} agent call${limit === 1 ? '' : 's'} made, node ${nodeId} was not asked`,
        });
        return false;
      }
      agentCalls += 1;
      return true;
    },
    exceed,
    exceeded: () => exceeded,
    state: () => ({
      ...(budgets.max_minutes === undefined ? {} : { max_minutes: budgets.max_minutes }),
      ...(budgets.max_agent_calls === undefined ? {} : { max_agent_calls: budgets.max_agent_calls }),
      max_fix_attempts: budgets.max_fix_attempts ?? DEFAULT_MAX_FIX_ATTEMPTS,
      agent_calls: agentCalls,
      minutes: Math.round(((clock() - startedMs) / 60_000) * 1000) / 1000,
      ...(exceeded === undefined ? {} : { exceeded: exceeded.budget }),
    }),
    dispose() {
      clearTimeout(timer);
    },
  };
}
