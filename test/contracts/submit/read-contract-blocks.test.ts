import { describe, expect, it } from 'vitest';
import { readContractBlocks } from '../../../src/contracts/index.js';
import { hostileNestedLists } from '../../helpers/hostile-markdown.js';

describe('readContractBlocks', () => {
  it('returns nothing for a document without artifact=, however many fences it has', async () => {
    expect(await readContractBlocks('```json\n{"issues": []}\n```\n'.repeat(1000))).toEqual({ blocks: [] });
  });

  it('passes the time limit on to the parser: a parse that overruns it gives no blocks', async () => {
    const text = '```json artifact=issues\n{"issues": []}\n```\n'.repeat(400);
    expect((await readContractBlocks(text)).blocks).toHaveLength(400);
    expect(await readContractBlocks(text, { timeLimitMs: -1 })).toEqual({ blocks: [], timedOut: true });
  });

  it('reads the blocks among the first max_blocks candidates and counts the artifact= blocks after them', async () => {
    const block = '```json artifact=issues\n{"issues": []}\n```\n';
    const text = '```ts file=a.ts\nx\n```\n'.repeat(3) + block.repeat(40_000);
    const scan = await readContractBlocks(text, { maxBlocks: 500 });
    expect(scan.blocks).toHaveLength(497);
    expect(scan.omitted).toBe(39_503);
    expect(await readContractBlocks(block.repeat(2), { maxBlocks: 2 })).toEqual({
      blocks: [expect.objectContaining({ line: 1 }), expect.objectContaining({ line: 4 })],
    });
  });

  it('stops a hostile document at its time limit, in a worker that is then terminated', async () => {
    const hostile = hostileNestedLists('```json artifact=issues\n{"issues": []}\n```\n');
    expect(await readContractBlocks(hostile, { timeLimitMs: 300, parser: 'micromark' })).toEqual({
      blocks: [],
      timedOut: true,
    });
    // The next document gets a fresh worker and its blocks.
    expect((await readContractBlocks('```json artifact=issues\n{"issues": []}\n```\n')).blocks).toHaveLength(
      1,
    );
  }, 20_000);

  it('reads the block of the same document with the scanner, the default parser, within the same limit', async () => {
    const hostile = hostileNestedLists('```json artifact=issues\n{"issues": []}\n```\n');
    expect(await readContractBlocks(hostile, { timeLimitMs: 300 })).toEqual({
      blocks: [{ type: 'issues', json: '{"issues": []}\n', closed: true, line: 4 }],
    });
  });

  it('reads two blocks in document order, with their types, JSON and lines', async () => {
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
    expect((await readContractBlocks(text)).blocks).toEqual([
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
  ])('reads a block nested in %s, without its container markers', async (_name, text, json) => {
    expect((await readContractBlocks(text)).blocks).toEqual([
      expect.objectContaining({ type: 'issues', json, closed: true }),
    ]);
  });

  it('marks a block cut off before its closing fence as not closed', async () => {
    expect((await readContractBlocks('```json artifact=issues\n{"issues": [\n')).blocks).toEqual([
      { type: 'issues', json: '{"issues": [\n', closed: false, line: 1 },
    ]);
  });

  it('reads a four-backtick fence that holds a three-backtick line', async () => {
    const text = '````json artifact=commit_message\n{"body": "```"}\n```\n````\n';
    expect((await readContractBlocks(text)).blocks).toEqual([
      { type: 'commit_message', json: '{"body": "```"}\n```\n', closed: true, line: 1 },
    ]);
  });

  it('ignores a ~~~ fence, blocks without artifact=, and artifact= outside an info string', async () => {
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
    expect((await readContractBlocks(text)).blocks).toEqual([]);
  });
});
