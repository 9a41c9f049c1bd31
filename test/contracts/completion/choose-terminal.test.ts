import { describe, expect, it } from 'vitest';
import { chooseTerminal } from '../../../src/contracts/index.js';
import type { RunEnding, TerminalState } from '../../../src/contracts/index.js';

const AT = new Date('2026-11-21T06:00:00.000Z');
const path = (type: string) => `.agent/artifacts/run-1/${type}.json`;
const submissions: RunEnding['submissions'] = [
  { type: 'product_spec', path: path('product_spec') },
  { type: 'development_result', path: path('development_result') },
  { type: 'issues', path: path('issues') },
  { type: 'fix_result', path: path('fix_result') },
  { type: 'smoke_test_result', path: path('smoke_test_result') },
];
const regression = { reason: 'npm test passed in run-0 and fails now', artifact: path('smoke_test_result') };
const budgetExceeded = { budget: 'max_agent_calls', reason: 'max_agent_calls (20) reached' } as const;
const blocked = { reason: '1 blocker issue: B1', artifact: path('issues') };
const failed = { reason: 'node plan: agent_failed: exit code 1' };

describe('chooseTerminal', () => {
  it.each<[string, RunEnding, Omit<TerminalState, 'at'>]>([
    [
      'regression wins over everything',
      { regression, budgetExceeded, blocked, failed, submissions },
      { state: 'regression', artifact: path('smoke_test_result'), reason: regression.reason },
    ],
    [
      'budget_exceeded wins over blocked and failure, with the latest artifact',
      { budgetExceeded, blocked, failed, submissions },
      { state: 'budget_exceeded', artifact: path('smoke_test_result'), reason: budgetExceeded.reason },
    ],
    [
      'blocked wins over a failure, with the blocking artifact',
      { blocked, failed, submissions },
      { state: 'blocked', artifact: path('issues'), reason: blocked.reason },
    ],
    [
      'blocked without an artifact points at the latest issues',
      { blocked: { reason: 'the agent says the API key is missing', artifact: null }, submissions },
      { state: 'blocked', artifact: path('issues'), reason: 'the agent says the API key is missing' },
    ],
    [
      'a failure outside any contract is blocked, with the latest issues',
      { failed, submissions },
      { state: 'blocked', artifact: path('issues'), reason: failed.reason },
    ],
    [
      'a failure with no issues has no artifact',
      { failed, submissions: submissions.slice(0, 2) },
      { state: 'blocked', artifact: null, reason: failed.reason },
    ],
    [
      'done reads the latest development_result',
      { submissions },
      { state: 'done', artifact: path('development_result'), reason: 'every contract satisfied' },
    ],
    [
      'done without a development_result reads the latest fix_result',
      { submissions: submissions.filter((each) => each.type !== 'development_result') },
      { state: 'done', artifact: path('fix_result'), reason: 'every contract satisfied' },
    ],
    [
      'done without either reads the latest artifact',
      { submissions: submissions.slice(0, 1) },
      { state: 'done', artifact: path('product_spec'), reason: 'every contract satisfied' },
    ],
    [
      'done without contracts has no artifact',
      { submissions: [] },
      { state: 'done', artifact: null, reason: 'every node completed' },
    ],
    [
      'budget_exceeded before anything was submitted has no artifact',
      { budgetExceeded, submissions: [] },
      { state: 'budget_exceeded', artifact: null, reason: budgetExceeded.reason },
    ],
  ])('%s', (_name, ending, expected) => {
    expect(chooseTerminal(ending, AT)).toEqual({ ...expected, at: '2026-11-21T06:00:00.000Z' });
  });

  it('picks the latest submission of a type when it was submitted twice', () => {
    const twice = [
      { type: 'development_result', path: 'first' },
      { type: 'development_result', path: 'second' },
    ] as const;
    expect(chooseTerminal({ submissions: twice }, AT).artifact).toBe('second');
  });
});
