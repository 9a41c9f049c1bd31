import { describe, expect, it } from 'vitest';
import {
  CONTRACT_EXAMPLES,
  contractSummary,
  fixRequest,
  judgeCompletion,
  validateArtifact,
} from '../../../src/contracts/index.js';

describe('fixRequest', () => {
  it('names every field error with its expected value, the attempt, the fields of the type and the block to write', () => {
    const validation = validateArtifact('development_result', {
      ...CONTRACT_EXAMPLES.development_result,
      outcome: 'done',
      checks_run: [{ command: 'npm test', result: 'ok' }],
      summary: undefined,
    });
    if (validation.ok) throw new Error('accepted');
    const completion = judgeCompletion({
      contract: 'development_result',
      agent: { returned: true },
      submissions: [{ accepted: false, type: 'development_result', errors: validation.errors }],
    });
    if (completion.state !== 'fix_needed') throw new Error(completion.state);
    const text = fixRequest('development_result', completion, { number: 1, of: 2 });
    expect(
      text.startsWith(
        'Fix request 1 of 2: your previous answer did not satisfy the development_result contract.',
      ),
    ).toBe(true);
    for (const error of validation.errors) expect(text).toContain(`- ${error.message}`);
    expect(text).toContain('- outcome: expected one of "completed", "partial", "failed", got "done"');
    expect(text).toContain('- checks_run[0].result: expected one of "passed", "failed", "skipped", got "ok"');
    expect(text).toContain('- summary: expected text (the field is required)');
    expect(text).toContain('```json artifact=development_result');
    expect(text).toContain('submit_artifact');
    // What the type requires, inline, once; no pointer at a file of the package.
    expect(text.split(contractSummary('development_result'))).toHaveLength(2);
    expect(text).not.toContain('docs/contracts');
  });

  it('gives the reason and the fields of the type when there are no field errors (nothing submitted)', () => {
    const completion = judgeCompletion({ contract: 'issues', agent: { returned: true }, submissions: [] });
    if (completion.state !== 'fix_needed') throw new Error(completion.state);
    expect(fixRequest('issues', completion, { number: 2, of: 2 }).split('\n\n')).toEqual([
      'Fix request 2 of 2: your previous answer did not satisfy the issues contract.',
      'no issues artifact was submitted.',
      contractSummary('issues'),
      'Submit the complete issues artifact as one fenced block opened with ```json artifact=issues holding one JSON object (or with the submit_artifact tool).',
    ]);
  });
});
