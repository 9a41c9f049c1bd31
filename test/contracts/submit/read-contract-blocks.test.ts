import { describe, expect, it } from 'vitest';
import { readContractBlocks } from '../../../src/contracts/index.js';

describe('readContractBlocks', () => {
  it('returns nothing for a document without artifact=, however many fences it has', () => {
    expect(readContractBlocks('```json\n{"issues": []}\n```\n'.repeat(1000))).toEqual([]);
  });

  it('passes the time limit on to the parser: a parse that overruns it gives no blocks', () => {
    const text = '```json artifact=issues\n{"issues": []}\n```\n'.repeat(1000);
    expect(readContractBlocks(text)).toHaveLength(1000);
    expect(readContractBlocks(text, { timeLimitMs: -1 })).toEqual([]);
  });

  it('reads two blocks in document order, with their types, JSON and lines', () => {
    const text = [
      '# Review',
      '',
      '```json artifact=issues',
      '{"issues": []}',
      '```',
      '',
      'and the decision:',
      '',
      '```json artifact=review_analysis_decision',
      '{"section": "s"}',
      '```',
      '',
    ].join('\n');
    expect(readContractBlocks(text)).toEqual([
      { type: 'issues', json: '{"issues": []}\n', closed: true, line: 3 },
      { type: 'review_analysis_decision', json: '{"section": "s"}\n', closed: true, line: 9 },
    ]);
  });

  it.each([
    [
      'a list item',
      '- the result:\n\n  ```json artifact=issues\n  {"issues": []}\n  ```\n',
      '{"issues": []}\n',
    ],
    ['a block quote', '> ```json artifact=issues\n> {"issues": []}\n> ```\n', '{"issues": []}\n'],
  ])('reads a block nested in %s, without its container markers', (_name, text, json) => {
    expect(readContractBlocks(text)).toEqual([
      expect.objectContaining({ type: 'issues', json, closed: true }),
    ]);
  });

  it('marks a block cut off before its closing fence as not closed', () => {
    expect(readContractBlocks('```json artifact=issues\n{"issues": [\n')).toEqual([
      { type: 'issues', json: '{"issues": [\n', closed: false, line: 1 },
    ]);
  });

  it('reads a four-backtick fence that holds a three-backtick line', () => {
    const text = '````json artifact=commit_message\n{"body": "```"}\n```\n````\n';
    expect(readContractBlocks(text)).toEqual([
      { type: 'commit_message', json: '{"body": "```"}\n```\n', closed: true, line: 1 },
    ]);
  });

  it('ignores a ~~~ fence, blocks without artifact=, and artifact= outside an info string', () => {
    const text = [
      '~~~json artifact=issues',
      '{"issues": []}',
      '~~~',
      '```ts file=src/a.ts',
      'const artifact= 1;',
      '```',
      'Write artifact=issues in the info string.',
      '',
    ].join('\n');
    expect(readContractBlocks(text)).toEqual([]);
  });
});
