import { describe, expect, it } from 'vitest';
import { CONTRACT_EXAMPLES, CONTRACT_TYPES, reduceArtifact } from '../../../src/contracts/index.js';
import type { ArtifactPayload, ContractType, Reduction } from '../../../src/contracts/index.js';

const example = <T extends ContractType>(
  type: T,
  change: Partial<ArtifactPayload<T>>,
): ArtifactPayload<T> => ({
  ...CONTRACT_EXAMPLES[type],
  ...change,
});

describe('reduceArtifact', () => {
  it.each(CONTRACT_TYPES)('advances on the %s example', (type) => {
    expect(reduceArtifact(type, CONTRACT_EXAMPLES[type])).toEqual({ advance: true });
  });

  it.each(['development_result', 'fix_result'] as const)(
    '%s: completed advances, partial needs a fix, failed blocks',
    (type) => {
      expect(reduceArtifact(type, example(type, { outcome: 'completed' }))).toEqual({ advance: true });
      expect(
        reduceArtifact(type, example(type, { outcome: 'partial', summary: 'Half the endpoints done.' })),
      ).toEqual({
        advance: false,
        verdict: 'fix_needed',
        reason: `${type} says outcome: partial (Half the endpoints done.); finish the work and submit outcome: completed`,
      });
      expect(
        reduceArtifact(type, example(type, { outcome: 'failed', summary: 'The build\n  is broken.' })),
      ).toEqual({
        advance: false,
        verdict: 'blocked',
        reason: `${type} says outcome: failed: The build is broken.`,
      });
    },
  );

  it('issues: advances without blockers (and on an empty list), blocks listing each blocker', () => {
    expect(reduceArtifact('issues', { issues: [] })).toEqual({ advance: true });
    const [major, nit] = CONTRACT_EXAMPLES.issues.issues;
    if (major === undefined || nit === undefined) throw new Error('example changed');
    const issues = [
      { ...major, severity: 'blocker' as const },
      nit,
      { ...nit, id: 'ISS-3', severity: 'blocker' as const, title: 'Secrets in the log' },
    ];
    expect(reduceArtifact('issues', { issues })).toEqual({
      advance: false,
      verdict: 'blocked',
      reason: '2 blocker issues: ISS-1: Retry-After is in milliseconds; ISS-3: Secrets in the log',
    });
    expect(reduceArtifact('issues', { issues: issues.slice(0, 1) })).toMatchObject({
      reason: '1 blocker issue: ISS-1: Retry-After is in milliseconds',
    });
  });

  it('smoke_test_result: advances when failed is 0, blocks naming the failing commands', () => {
    const commands = [
      { command: 'npm test', exit_code: 1, passed: false },
      { command: 'npm run build', exit_code: 0, passed: true },
    ];
    expect(
      reduceArtifact('smoke_test_result', example('smoke_test_result', { commands, passed: 1, failed: 1 })),
    ).toEqual({
      advance: false,
      verdict: 'blocked',
      reason: '1 smoke test failed: npm test',
    });
    // The count decides, even when no command says which one failed.
    expect(reduceArtifact('smoke_test_result', example('smoke_test_result', { failed: 2 }))).toEqual({
      advance: false,
      verdict: 'blocked',
      reason: '2 smoke tests failed',
    });
  });

  it.each([
    'planning_analysis_decision',
    'review_analysis_decision',
    'development_analysis_decision',
  ] as const)('%s: accept and revise advance, reject blocks', (type) => {
    expect(reduceArtifact(type, example(type, { decision: 'accept' }))).toEqual({ advance: true });
    expect(reduceArtifact(type, example(type, { decision: 'revise' }))).toEqual({ advance: true });
    expect(
      reduceArtifact(type, example(type, { decision: 'reject', section: 'Plan', rationale: 'It skips R2.' })),
    ).toEqual({ advance: false, verdict: 'blocked', reason: `${type} rejects Plan: It skips R2.` });
  });

  it.each(['product_spec', 'commit_message', 'commit_cleanup'] as const)('%s always advances', (type) => {
    expect(reduceArtifact(type, CONTRACT_EXAMPLES[type])).toEqual({ advance: true });
  });

  it('clips long agent text in a reason to 160 characters', () => {
    const reduction: Reduction = reduceArtifact(
      'development_result',
      example('development_result', { outcome: 'failed', summary: 'x'.repeat(1000) }),
    );
    expect(reduction.advance).toBe(false);
    if (reduction.advance) return;
    expect(reduction.reason).toBe(`development_result says outcome: failed: ${'x'.repeat(160)}…`);
  });
});
