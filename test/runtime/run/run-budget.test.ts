import { afterEach, describe, expect, it, vi } from 'vitest';
import { effectiveBudgets, startRunBudget } from '../../../src/runtime/run/run-budget.js';
import type { ExceededBudget } from '../../../src/runtime/run/run-budget.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('effectiveBudgets', () => {
  it.each([
    ['no budgets at all', undefined, undefined, { max_fix_attempts: 2 }],
    [
      "the graph's budgets",
      { max_minutes: 5, max_agent_calls: 9, max_fix_attempts: 0 },
      undefined,
      { max_minutes: 5, max_agent_calls: 9, max_fix_attempts: 0 },
    ],
    [
      'CLI overrides replacing them',
      { max_minutes: 5, max_agent_calls: 9 },
      { maxMinutes: 0.5, maxAgentCalls: 1 },
      { max_minutes: 0.5, max_agent_calls: 1, max_fix_attempts: 2 },
    ],
  ])('applies %s', (_name, graph, overrides, expected) => {
    expect(effectiveBudgets(graph, overrides)).toEqual(expected);
  });
});

describe('startRunBudget', () => {
  it('counts agent calls from the earlier invocations and refuses the one past max_agent_calls', () => {
    const budget = startRunBudget({
      budgets: { max_agent_calls: 3, max_fix_attempts: 2 },
      agentCallsBefore: 2,
      onMinutesOut: () => undefined,
    });
    expect(budget.takeAgentCall('a')).toBe(true);
    expect(budget.takeAgentCall('b')).toBe(false);
    expect(budget.exceeded()).toEqual({
      budget: 'max_agent_calls',
      reason: 'max_agent_calls ran out: 3 agent calls made, node b was not asked',
    });
    expect(budget.state()).toMatchObject({ agent_calls: 3, max_agent_calls: 3, exceeded: 'max_agent_calls' });
    // Once a budget ran out, nothing more is asked.
    expect(budget.takeAgentCall('c')).toBe(false);
    budget.dispose();
  });

  it('calls onMinutesOut once when max_minutes runs out, and that budget is the one exceeded', () => {
    vi.useFakeTimers();
    const out: ExceededBudget[] = [];
    let now = 0;
    const budget = startRunBudget({
      budgets: { max_minutes: 0.5 },
      agentCallsBefore: 0,
      onMinutesOut: (exceeded) => out.push(exceeded),
      clock: () => now,
    });
    vi.advanceTimersByTime(29_999);
    expect(out).toEqual([]);
    now = 30_000;
    vi.advanceTimersByTime(1);
    expect(out).toEqual([
      { budget: 'max_minutes', reason: expect.stringContaining('max_minutes ran out') as unknown },
    ]);
    expect(budget.state()).toMatchObject({ minutes: 0.5, max_minutes: 0.5, exceeded: 'max_minutes' });
    expect(budget.takeAgentCall('a')).toBe(false);
    budget.dispose();
  });

  it('never runs out without limits', () => {
    const budget = startRunBudget({ budgets: {}, agentCallsBefore: 0, onMinutesOut: () => undefined });
    for (let call = 0; call < 100; call += 1) expect(budget.takeAgentCall('a')).toBe(true);
    expect(budget.exceeded()).toBeUndefined();
    expect(budget.maxFixAttempts).toBe(2);
    budget.dispose();
  });
});
