import { describe, expect, it } from 'vitest';
import type { FenceBlock } from '../../src/fence/index.js';
import { DEFAULT_INGEST_LIMITS } from '../../src/config/index.js';
import { planBlocks } from '../../src/ingest/index.js';
import type { BlockPlan } from '../../src/ingest/plan-blocks.js';

function block(
  index: number,
  declaredFile: string,
  content = 'x\n',
  verdict: FenceBlock['verdict'] = { valid: true },
): FenceBlock {
  return {
    index,
    candidate: true,
    lang: 'ts',
    declaredFile,
    info: `ts file=${declaredFile}`,
    rawInfo: `ts file=${declaredFile}`,
    fenceChar: '`',
    fenceLength: 3,
    content,
    closed: true,
    startLine: index * 3 + 1,
    endLine: index * 3 + 3,
    verdict,
  };
}

const summary = (plans: BlockPlan[]) =>
  plans.map((plan) => (plan.kind === 'write' ? `write ${plan.path}` : `${plan.code} ${plan.path ?? '-'}`));

describe('planBlocks', () => {
  it.each<[string, FenceBlock[], string[]]>([
    ['clears valid blocks with their normalized path', [block(0, './src//a.ts')], ['write src/a.ts']],
    [
      'keeps the parser verdict',
      [block(0, 'a.ts', 'x', { valid: false, code: 'unterminated', message: 'm' })],
      ['unterminated a.ts'],
    ],
    ['rejects by path rule without a path', [block(0, '../a.ts')], ['traversal -']],
    [
      'lets the last of a repeated path win',
      [block(0, 'a.ts'), block(1, 'b.ts'), block(2, './a.ts')],
      ['superseded a.ts', 'write b.ts', 'write a.ts'],
    ],
    [
      'does not let an invalid repeat supersede',
      [block(0, 'a.ts'), block(1, 'a.ts', 'x', { valid: false, code: 'unterminated', message: 'm' })],
      ['write a.ts', 'unterminated a.ts'],
    ],
    [
      'rejects all blocks of a case collision',
      [block(0, 'A.ts'), block(1, 'a.ts'), block(2, 'b.ts')],
      ['case_collision A.ts', 'case_collision a.ts', 'write b.ts'],
    ],
    [
      'treats NFC and NFD spellings as a collision',
      [block(0, 'caf\u00e9.md'), block(1, 'cafe\u0301.md')],
      ['case_collision caf\u00e9.md', 'case_collision cafe\u0301.md'],
    ],
  ])('%s', (_name, blocks, expected) => {
    expect(summary(planBlocks(blocks, DEFAULT_INGEST_LIMITS))).toEqual(expected);
  });

  it('applies max_block_bytes and max_total_bytes in document order', () => {
    const limits = { ...DEFAULT_INGEST_LIMITS, maxBlockBytes: 8, maxTotalBytes: 10 };
    const blocks = [block(0, 'a', '123456\n'), block(1, 'b', '123456789\n'), block(2, 'c', '1234\n')];
    expect(summary(planBlocks(blocks, limits))).toEqual(['write a', 'too_large b', 'too_large c']);
  });

  it('leaves max_blocks to limitCandidates: it plans every block it is given', () => {
    const limits = { ...DEFAULT_INGEST_LIMITS, maxBlocks: 1 };
    expect(summary(planBlocks([block(0, 'a'), block(1, 'b')], limits))).toEqual(['write a', 'write b']);
  });

  it.each([
    ['json artifact=issues', 'issues'],
    ['json \tartifact=development_result', 'development_result'],
  ])('skips a contract block (%j) as contract_block, before any other rule', (info, type) => {
    // No file=: by the file rules alone this block would be missing_file.
    const contract = { ...block(0, ''), lang: 'json', info, rawInfo: info };
    const [plan] = planBlocks([contract], DEFAULT_INGEST_LIMITS);
    expect(plan).toMatchObject({ kind: 'decided', code: 'contract_block' });
    expect(plan?.kind === 'decided' ? plan.message : '').toContain(
      `artifact=${type} block is a contract artifact`,
    );
  });

  it('judges a block with artifact= and anything else by the file rules, not as a contract block', () => {
    const info = 'json artifact=issues file=src/a.json';
    const [plan] = planBlocks([{ ...block(0, 'src/a.json'), info, rawInfo: info }], DEFAULT_INGEST_LIMITS);
    expect(plan?.kind === 'decided' ? plan.code : plan?.kind).not.toBe('contract_block');
  });

  it('counts block size in UTF-8 bytes, not UTF-16 units', () => {
    const limits = { ...DEFAULT_INGEST_LIMITS, maxBlockBytes: 5 };
    expect(summary(planBlocks([block(0, 'a', 'ééé')], limits))).toEqual(['too_large a']);
  });
});
