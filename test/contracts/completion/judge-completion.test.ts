import { describe, expect, it } from 'vitest';
import { CONTRACT_EXAMPLES, judgeCompletion, validateArtifact } from '../../../src/contracts/index.js';
import type { AttemptSubmission, CompletionInput, FieldError } from '../../../src/contracts/index.js';

const RETURNED = { returned: true } as const;

function accepted<T extends keyof typeof CONTRACT_EXAMPLES>(
  type: T,
  change: Partial<(typeof CONTRACT_EXAMPLES)[T]> = {},
): AttemptSubmission {
  return {
    accepted: true,
    type,
    path: `.agent/artifacts/run-1/${type}.json`,
    payload: { ...CONTRACT_EXAMPLES[type], ...change },
  };
}

function refused(type: string, payload: unknown): AttemptSubmission {
  const validation = validateArtifact(type, payload);
  if (validation.ok) throw new Error('the payload is valid');
  return { accepted: false, type, errors: validation.errors };
}

const blockerIssues = accepted('issues', {
  issues: [
    { id: 'B1', severity: 'blocker', title: 'No database to migrate', description: 'DATABASE_URL is unset.' },
  ],
});
const badResult = refused('development_result', { ...CONTRACT_EXAMPLES.development_result, outcome: 'done' });
const badErrors = (badResult as { errors: readonly FieldError[] }).errors;

describe('judgeCompletion', () => {
  it.each<[string, CompletionInput, unknown]>([
    [
      'no submission: fix_needed',
      { contract: 'development_result', agent: RETURNED, submissions: [] },
      { state: 'fix_needed', reason: 'no development_result artifact was submitted', errors: [] },
    ],
    [
      'a refused submission and nothing after it: fix_needed with its errors',
      { contract: 'development_result', agent: RETURNED, submissions: [badResult] },
      {
        state: 'fix_needed',
        reason: 'the development_result artifact was refused (1 field error)',
        errors: badErrors,
      },
    ],
    [
      'refused then accepted: done with the accepted path',
      {
        contract: 'development_result',
        agent: RETURNED,
        submissions: [badResult, accepted('development_result')],
      },
      { state: 'done', artifact: '.agent/artifacts/run-1/development_result.json' },
    ],
    [
      'accepted then refused: the accepted one stands',
      {
        contract: 'development_result',
        agent: RETURNED,
        submissions: [accepted('development_result'), badResult],
      },
      { state: 'done', artifact: '.agent/artifacts/run-1/development_result.json' },
    ],
    [
      'only another type submitted: fix_needed',
      { contract: 'development_result', agent: RETURNED, submissions: [accepted('product_spec')] },
      { state: 'fix_needed', reason: 'no development_result artifact was submitted', errors: [] },
    ],
    [
      'accepted partial: fix_needed with the reducer reason',
      {
        contract: 'development_result',
        agent: RETURNED,
        submissions: [accepted('development_result', { outcome: 'partial', summary: 'Half done.' })],
      },
      {
        state: 'fix_needed',
        reason:
          'development_result says outcome: partial (Half done.); finish the work and submit outcome: completed',
        errors: [],
      },
    ],
    [
      'accepted failed: blocked on that artifact',
      {
        contract: 'fix_result',
        agent: RETURNED,
        submissions: [accepted('fix_result', { outcome: 'failed', summary: 'Cannot reproduce.' })],
      },
      {
        state: 'blocked',
        reason: 'fix_result says outcome: failed: Cannot reproduce.',
        artifact: '.agent/artifacts/run-1/fix_result.json',
      },
    ],
    [
      'blocker issues during another contract: blocked on the issues artifact',
      {
        contract: 'development_result',
        agent: RETURNED,
        submissions: [blockerIssues, accepted('development_result')],
      },
      {
        state: 'blocked',
        reason: '1 blocker issue: B1: No database to migrate',
        artifact: '.agent/artifacts/run-1/issues.json',
      },
    ],
    [
      'blocker issues even when the agent then timed out: blocked',
      {
        contract: 'development_result',
        agent: { returned: false, code: 'timeout', message: 'no answer in 600 s' },
        submissions: [blockerIssues],
      },
      {
        state: 'blocked',
        reason: '1 blocker issue: B1: No database to migrate',
        artifact: '.agent/artifacts/run-1/issues.json',
      },
    ],
    [
      'issues without a blocker during another contract: judged on the contract',
      {
        contract: 'development_result',
        agent: RETURNED,
        submissions: [accepted('issues'), accepted('development_result')],
      },
      { state: 'done', artifact: '.agent/artifacts/run-1/development_result.json' },
    ],
    [
      'an issues contract with a blocker: blocked by its own reducer',
      { contract: 'issues', agent: RETURNED, submissions: [blockerIssues] },
      {
        state: 'blocked',
        reason: '1 blocker issue: B1: No database to migrate',
        artifact: '.agent/artifacts/run-1/issues.json',
      },
    ],
    [
      'agent timeout after a valid submission: fix_needed (the agent must return)',
      {
        contract: 'development_result',
        agent: { returned: false, code: 'timeout', message: 'no answer in 600 s' },
        submissions: [accepted('development_result')],
      },
      { state: 'fix_needed', reason: 'the agent did not return (timeout: no answer in 600 s)', errors: [] },
    ],
    [
      'agent crash without a submission: fix_needed',
      {
        contract: 'commit_message',
        agent: { returned: false, code: 'agent_failed', message: 'exit code 137' },
        submissions: [],
      },
      { state: 'fix_needed', reason: 'the agent did not return (agent_failed: exit code 137)', errors: [] },
    ],
    [
      'reject decision: blocked',
      {
        contract: 'review_analysis_decision',
        agent: RETURNED,
        submissions: [
          accepted('review_analysis_decision', { decision: 'reject', rationale: 'Wrong feature.' }),
        ],
      },
      {
        state: 'blocked',
        reason: 'review_analysis_decision rejects Review of the rate limiter: Wrong feature.',
        artifact: '.agent/artifacts/run-1/review_analysis_decision.json',
      },
    ],
    [
      'failed smoke tests: blocked',
      {
        contract: 'smoke_test_result',
        agent: RETURNED,
        submissions: [
          accepted('smoke_test_result', {
            commands: [{ command: 'npm test', exit_code: 1, passed: false }],
            passed: 0,
            failed: 1,
          }),
        ],
      },
      {
        state: 'blocked',
        reason: '1 smoke test failed: npm test',
        artifact: '.agent/artifacts/run-1/smoke_test_result.json',
      },
    ],
    [
      'the latest of two accepted submissions decides',
      {
        contract: 'development_result',
        agent: RETURNED,
        submissions: [accepted('development_result', { outcome: 'partial' }), accepted('development_result')],
      },
      { state: 'done', artifact: '.agent/artifacts/run-1/development_result.json' },
    ],
  ])('%s', (_name, input, expected) => {
    expect(judgeCompletion(input)).toEqual(expected);
  });
});
