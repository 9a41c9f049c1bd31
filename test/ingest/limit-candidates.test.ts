import { describe, expect, it } from 'vitest';
import { parseFences } from '../../src/fence/index.js';
import type { FenceBlock } from '../../src/fence/index.js';
import { limitCandidates, omittedBlocksOutcome } from '../../src/ingest/limit-candidates.js';
import { manifestArtifactOf } from '../../src/ingest/block-outcome.js';

function block(index: number, info: string, verdict: FenceBlock['verdict'] = { valid: true }): FenceBlock {
  return {
    index,
    candidate: true,
    lang: info.split(' ')[0] ?? '',
    declaredFile: '',
    info,
    rawInfo: info,
    fenceChar: '`',
    fenceLength: 3,
    content: 'x\n',
    closed: true,
    startLine: 1,
    endLine: 3,
    verdict,
  };
}

const quoted = { valid: false, code: 'quoted_path', message: 'm' } as const;

describe('limitCandidates', () => {
  it('keeps every candidate within max_blocks and counts nothing', () => {
    const blocks = [block(0, 'ts file=a'), block(1, 'ts file=b')];
    expect(limitCandidates({ blocks }, 2)).toEqual({ blocks, omitted: undefined });
  });

  it('counts the blocks past max_blocks by the reason each would have had alone', () => {
    const blocks = [
      block(0, 'ts file=a'),
      block(1, 'ts file=b'),
      block(2, 'ts file="c"', quoted),
      block(3, 'json artifact=plan', { valid: false, code: 'missing_file', message: 'm' }),
      block(4, 'ts file="d"', quoted),
    ];
    const limited = limitCandidates({ blocks }, 1);
    expect(limited.blocks).toEqual([blocks[0]]);
    expect(limited.omitted).toEqual({
      count: 4,
      byReason: { quoted_path: 2, contract_block: 1, too_many_blocks: 1 },
    });
  });

  it("adds the parser's omitted candidates, by kind, to those it returned past the limit", () => {
    const limited = limitCandidates(
      {
        blocks: [block(0, 'ts file=a'), block(1, 'ts path=b', quoted)],
        omitted: { count: 6, byKind: { valid: 1, artifact: 2, quoted_path: 3 } },
      },
      1,
    );
    expect(limited.omitted).toEqual({
      count: 7,
      byReason: { quoted_path: 4, contract_block: 2, too_many_blocks: 1 },
    });
    // Most frequent first, ties by code.
    expect(Object.keys(limited.omitted?.byReason ?? {})).toEqual([
      'quoted_path',
      'contract_block',
      'too_many_blocks',
    ]);
  });

  it('gives the same counts whether the parser or limitCandidates left the candidates out', () => {
    const doc = ['```ts file=a.ts\nx\n```\n', '```ts path=x\n```\n', '```json artifact=plan\n{}\n```\n']
      .join('')
      .repeat(7);
    const full = limitCandidates(parseFences(doc), 4);
    const capped = limitCandidates(parseFences(doc, { maxCandidates: 4 }), 4);
    expect(capped).toEqual(full);
    expect(full.omitted).toEqual({
      count: 17,
      byReason: { contract_block: 6, unsupported_key: 6, too_many_blocks: 5 },
    });
  });
});

describe('omittedBlocksOutcome', () => {
  it('is one skipped too_many_blocks entry at the first omitted index, with no file and no content', () => {
    const outcome = omittedBlocksOutcome({ count: 3, byReason: { quoted_path: 2, too_many_blocks: 1 } }, 500);
    expect(manifestArtifactOf(outcome)).toEqual({
      index: 500,
      lang: '',
      declared_file: '',
      workspace_path: '',
      bytes: 0,
      sha256: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
      status: 'skipped',
      reason:
        'too_many_blocks: 3 more candidate blocks were not ingested after the first 500 (max_blocks); by reason: quoted_path 2, too_many_blocks 1. Split the document or raise ingest.limits.max_blocks',
    });
    expect(outcome.omitted).toEqual({ count: 3, byReason: { quoted_path: 2, too_many_blocks: 1 } });
  });

  it('says "1 more candidate block was" for one', () => {
    expect(omittedBlocksOutcome({ count: 1, byReason: { too_many_blocks: 1 } }, 2).message).toMatch(
      /^1 more candidate block was not ingested after the first 2 /,
    );
  });
});
