import { describe, expect, it } from 'vitest';
import {
  CONTRACT_EXAMPLES,
  MAX_ARTIFACT_BYTES,
  MAX_FIELD_ERRORS,
  contractSummary,
  describeFieldErrors,
  validateArtifact,
  validateArtifactText,
} from '../../../src/contracts/index.js';

describe('validateArtifactText', () => {
  it('accepts the JSON text of a valid payload', () => {
    const text = JSON.stringify(CONTRACT_EXAMPLES.issues);
    expect(validateArtifactText('issues', text)).toEqual({
      ok: true,
      type: 'issues',
      payload: CONTRACT_EXAMPLES.issues,
    });
  });

  it.each([
    ['not JSON at all', 'the review found nothing'],
    ['a trailing comma', '{"issues": [],}'],
    ['an empty text', ''],
    ['a cut-off object', '{"issues": ['],
  ])('refuses %s as one (root) error saying one JSON object is expected', (_name, text) => {
    const validation = validateArtifactText('issues', text);
    expect(validation.ok).toBe(false);
    if (validation.ok) return;
    expect(validation.errors).toHaveLength(1);
    expect(validation.errors[0]).toMatchObject({ path: '(root)', expected: 'one JSON object' });
    expect(validation.errors[0]?.got).toMatch(/^text that is not JSON \(/);
  });

  it('refuses a JSON array where an object is expected', () => {
    const validation = validateArtifactText('issues', '[{"issues": []}]');
    expect(validation).toMatchObject({ ok: false, errors: [{ path: '(root)', expected: 'an object' }] });
  });

  it('refuses JSON over 1 MiB before parsing it, saying how large it was', () => {
    const summary = 'x'.repeat(MAX_ARTIFACT_BYTES);
    const text = JSON.stringify({ ...CONTRACT_EXAMPLES.development_result, summary });
    const validation = validateArtifactText('development_result', text);
    expect(validation).toMatchObject({
      ok: false,
      errors: [
        {
          path: '(root)',
          expected: `at most ${String(MAX_ARTIFACT_BYTES)} bytes of JSON`,
          got: `${String(Buffer.byteLength(text))} bytes`,
        },
      ],
    });
  });

  it('counts the limit in UTF-8 bytes, not characters', () => {
    const text = JSON.stringify({
      ...CONTRACT_EXAMPLES.development_result,
      summary: 'é'.repeat(MAX_ARTIFACT_BYTES / 2),
    });
    expect(text.length).toBeLessThan(MAX_ARTIFACT_BYTES);
    expect(validateArtifactText('development_result', text).ok).toBe(false);
  });

  it('refuses an unknown type, listing the ten', () => {
    const validation = validateArtifactText('test_report', '{}');
    expect(validation).toMatchObject({ ok: false, type: 'test_report' });
    if (validation.ok) return;
    expect(validation.errors[0]?.path).toBe('(root)');
    expect(validation.errors[0]?.expected).toMatch(
      /^a contract type: one of product_spec, .*commit_cleanup$/,
    );
    expect(validation.errors[0]?.got).toBe('"test_report"');
  });
});

describe('validateArtifact on a hostile payload', () => {
  it(`reports at most MAX_FIELD_ERRORS (${String(MAX_FIELD_ERRORS)}) errors for 10,000 bad items`, () => {
    const issues = Array.from({ length: 10_000 }, (_, index) => ({
      id: index,
      severity: 'fatal',
      extra: true,
    }));
    // Its time is measured in `npm run bench` (t(2n)/t(n), test/bench/hostile-inputs.ts); here, the errors.
    const validation = validateArtifact('issues', { issues });
    expect(validation.ok).toBe(false);
    if (validation.ok) return;
    expect(validation.errors).toHaveLength(MAX_FIELD_ERRORS);
    expect(validation.errors[0]?.path).toMatch(/^issues\[0\]\./);
    const text = describeFieldErrors('issues', validation.errors);
    expect(text).toContain(`at least ${String(MAX_FIELD_ERRORS)} fields to fix`);
    expect(text.split('\n')).toHaveLength(
      MAX_FIELD_ERRORS + 2 + contractSummary('issues').split('\n').length,
    );
  });

  it('never throws on values JSON cannot hold', () => {
    const cyclic: Record<string, unknown> = { issues: [] };
    cyclic['self'] = cyclic;
    for (const payload of [undefined, Symbol('x'), () => 1, 10n, cyclic, new Date(0)]) {
      expect(() => validateArtifact('issues', payload)).not.toThrow();
      expect(validateArtifact('issues', payload).ok).toBe(false);
    }
  });
});

describe('describeFieldErrors', () => {
  it('says how many fields to fix, lists each as "path: expected ..., got ...", how to resubmit and the format', () => {
    const validation = validateArtifact('development_result', {
      ...CONTRACT_EXAMPLES.development_result,
      outcome: 'done',
      changed_files: [{ path: '../x', change: 'added' }],
      summry: 'typo',
    });
    expect(validation.ok).toBe(false);
    if (validation.ok) return;
    expect(describeFieldErrors('development_result', validation.errors)).toBe(
      [
        'The development_result artifact was refused: 3 fields to fix.',
        '- outcome: expected one of "completed", "partial", "failed", got "done"',
        '- changed_files[0].path: expected a project-relative path (traversal: the path contains a \'..\' segment; paths must stay inside workspace/), got "../x"',
        '- summry: expected no key "summry"; did you mean "summary"?',
        'Fix each field above and submit the whole development_result artifact again.',
        contractSummary('development_result'),
      ].join('\n'),
    );
  });

  it('points at the format resources, not at a file, for a type that is not a contract type', () => {
    const validation = validateArtifact('isues', {});
    if (validation.ok) throw new Error('accepted');
    const text = describeFieldErrors('isues', validation.errors);
    expect(text.split('\n').at(-1)).toBe('The format of each type: artifact-ingest://contracts/<type>');
    expect(text).not.toContain('docs/contracts');
  });

  it('uses the singular for one field and names a missing field without a got', () => {
    const payload: Record<string, unknown> = { ...CONTRACT_EXAMPLES.development_result };
    delete payload['summary'];
    const validation = validateArtifact('development_result', payload);
    if (validation.ok) throw new Error('accepted');
    expect(describeFieldErrors('development_result', validation.errors).split('\n').slice(0, 2)).toEqual([
      'The development_result artifact was refused: 1 field to fix.',
      '- summary: expected text (the field is required)',
    ]);
  });
});
