import { describe, expect, it } from 'vitest';
import type { AttemptSubmission } from '../../../src/contracts/index.js';
import { parseWorkflow } from '../../../src/workflow/index.js';
import type { WorkflowContractState, WorkflowState } from '../../../src/workflow/index.js';
import {
  judgeStepContract,
  maxFixAttemptsOf,
  spentBudget,
} from '../../../src/workflow/engine/advance/judge-step-contract.js';
import { BLOCKER_ISSUES, DEVELOPMENT_RESULT, buildWorkflowYaml } from './fixtures/contract-fixtures.js';

const definition = parseWorkflow(buildWorkflowYaml(), 'build.yaml');
const [develop, review] = definition.steps;
const PATH = '.agent/artifacts/b/development_result.json';

function stateWith(contract?: WorkflowContractState): WorkflowState {
  return { ...({} as WorkflowState), ...(contract === undefined ? {} : { contract }) };
}

const accepted = (payload: unknown): AttemptSubmission => ({
  accepted: true,
  type: 'development_result',
  path: PATH,
  payload: payload as never,
});

describe('judgeStepContract', () => {
  it('passes a step without a contract', () => {
    if (review === undefined) throw new Error('no review step');
    expect(judgeStepContract(review, stateWith(), {}, [])).toEqual({ verdict: 'done' });
  });

  it.each<[string, AttemptSubmission[], WorkflowContractState | undefined, number, string, number]>([
    ['done on a completed result', [accepted(DEVELOPMENT_RESULT)], undefined, 2, 'done', 0],
    ['a first fix request when nothing was submitted', [], undefined, 2, 'fix_needed', 1],
    [
      'a second fix request after the first',
      [],
      { type: 'development_result', state: 'fix_needed', fix_attempt: 1, errors: [] },
      2,
      'fix_needed',
      2,
    ],
    [
      'failed once the fix requests are used up',
      [],
      { type: 'development_result', state: 'fix_needed', fix_attempt: 2, errors: [] },
      2,
      'failed',
      2,
    ],
    ['failed at once with max_fix_attempts 0', [], undefined, 0, 'failed', 0],
    [
      'failed (blocked) on a blocker issues artifact',
      [
        {
          accepted: true,
          type: 'issues',
          path: '.agent/artifacts/b/issues.json',
          payload: BLOCKER_ISSUES as never,
        },
      ],
      undefined,
      2,
      'failed',
      0,
    ],
  ])('gives %s', (_, submissions, contract, max, verdict, fixAttempt) => {
    if (develop === undefined) throw new Error('no develop step');
    const judged = judgeStepContract(develop, stateWith(contract), { max_fix_attempts: max }, submissions);
    expect(judged.verdict).toBe(verdict);
    expect(judged.contract?.fix_attempt).toBe(fixAttempt);
  });

  it('says which budget ran out: fix attempts when unanswered, blocked with the artifact when blocked', () => {
    if (develop === undefined) throw new Error('no develop step');
    const exhausted = judgeStepContract(develop, stateWith(), { max_fix_attempts: 0 }, []);
    expect(exhausted).toMatchObject({ failure: { kind: 'budget_exceeded', budget: 'max_fix_attempts' } });
    const blocked = judgeStepContract(develop, stateWith(), {}, [
      {
        accepted: true,
        type: 'issues',
        path: '.agent/artifacts/b/issues.json',
        payload: BLOCKER_ISSUES as never,
      },
    ]);
    expect(blocked).toMatchObject({
      failure: { kind: 'blocked', artifact: '.agent/artifacts/b/issues.json' },
      contract: { state: 'blocked', artifact: '.agent/artifacts/b/issues.json' },
    });
  });

  it('defaults max_fix_attempts to 2', () => {
    expect(maxFixAttemptsOf({})).toBe(2);
    expect(maxFixAttemptsOf({ max_fix_attempts: 0 })).toBe(0);
  });
});

describe('spentBudget', () => {
  const start = '2026-01-01T10:00:00.000Z';
  const at = (minutes: number): Date => new Date(Date.parse(start) + minutes * 60_000);

  it.each<[string, Parameters<typeof spentBudget>[0], number, number, string | undefined]>([
    ['nothing without budgets', {}, 100, 600, undefined],
    ['nothing while calls remain', { max_agent_calls: 3 }, 2, 0, undefined],
    ['max_agent_calls once that many calls were made', { max_agent_calls: 3 }, 3, 0, 'max_agent_calls'],
    ['nothing at exactly max_minutes', { max_minutes: 10 }, 1, 10, undefined],
    ['max_minutes past it', { max_minutes: 10 }, 1, 10.5, 'max_minutes'],
  ])('finds %s', (_, budgets, calls, minutes, budget) => {
    expect(spentBudget(budgets, calls, start, at(minutes))?.budget).toBe(budget);
  });
});
