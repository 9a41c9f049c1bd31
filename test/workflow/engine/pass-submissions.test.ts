import { describe, expect, it } from 'vitest';
import { parseRunId } from '../../../src/project/index.js';
import { readOutputSubmissions } from '../../../src/workflow/engine/advance/pass-submissions.js';
import { hostileNestedLists } from '../../helpers/hostile-markdown.js';
import { DEVELOPMENT_RESULT, answerWithArtifact } from './fixtures/contract-fixtures.js';

const runId = parseRunId('b-1');

describe('readOutputSubmissions', () => {
  it('finds nothing in an output without artifact= blocks, or without output', async () => {
    expect(await readOutputSubmissions(runId, 'Done.\n\n```ts file=a.ts\nx\n```\n')).toEqual({
      attempt: [],
      accepted: [],
    });
    expect(await readOutputSubmissions(runId, undefined)).toEqual({ attempt: [], accepted: [] });
  });

  it('refuses the artifact= blocks past max_blocks in one attempt that counts them', async () => {
    const block = '```json artifact=plan\n{}\n```\n';
    const read = await readOutputSubmissions(runId, block.repeat(Math.floor((1024 * 1024) / block.length)));
    expect(read.attempt).toHaveLength(501);
    expect(read.attempt.at(-1)).toEqual({
      accepted: false,
      type: '',
      errors: [
        expect.objectContaining({
          got: '35657 more artifact= blocks after the first 500 candidate blocks (max_blocks), not read',
        }),
      ],
    });
  }, 60_000);

  it('accepts a valid block at its canonical path, without writing it', async () => {
    const read = await readOutputSubmissions(
      runId,
      answerWithArtifact('Done.', 'development_result', DEVELOPMENT_RESULT),
    );
    expect(read.attempt).toEqual([
      {
        accepted: true,
        type: 'development_result',
        path: '.agent/artifacts/b-1/development_result.json',
        payload: DEVELOPMENT_RESULT,
      },
    ]);
    expect(read.accepted).toEqual([{ type: 'development_result', payload: DEVELOPMENT_RESULT }]);
  });

  it.each([
    ['a cut-off block', '```json artifact=issues\n{"issues": []}\n', 'a closed block'],
    ['text that is not JSON', '```json artifact=issues\n{issues: [}\n```\n', 'one JSON object'],
    ['an unknown type', '```json artifact=report\n{}\n```\n', 'a contract type'],
    ['a schema error', '```json artifact=issues\n{"issues": [{"id": "I1"}]}\n```\n', 'one of'],
  ])('refuses %s with a field error', async (_, output, expected) => {
    const read = await readOutputSubmissions(runId, output);
    expect(read.accepted).toEqual([]);
    const [first] = read.attempt;
    expect(first?.accepted).toBe(false);
    expect(
      first !== undefined && !first.accepted ? first.errors.map((error) => error.expected).join(' | ') : '',
    ).toContain(expected);
  });

  it('refuses an output whose parse overran max_parse_ms, naming the limit', async () => {
    const hostile = hostileNestedLists('```json artifact=issues\n{"issues": []}\n```\n');
    const read = await readOutputSubmissions(runId, hostile, { timeLimitMs: 300, parser: 'micromark' });
    expect(read.accepted).toEqual([]);
    const [refused] = read.attempt;
    expect(read.attempt).toHaveLength(1);
    expect(
      refused !== undefined && !refused.accepted ? refused.errors.map((error) => error.got) : [],
    ).toEqual(['an output that took over max_parse_ms (300 ms) to parse']);
  }, 20_000);
});
