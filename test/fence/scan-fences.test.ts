import { describe, expect, it } from 'vitest';
import { scanFences } from '../../src/fence/scan-fences.js';

const doc = [
  '# Plan',
  '',
  '```bash',
  'npm i',
  '```',
  '',
  '```ts file=src/a.ts',
  'export const a = 1;',
  '```',
  '',
  '~~~py file=b.py',
  'b = 2',
  '~~~',
  '',
  '```ts path=c.ts',
  '```',
  '',
].join('\n');

describe('scanFences', () => {
  it('returns candidates only, numbered from 0 in document order', () => {
    const { blocks, parsed } = scanFences(doc);
    expect(parsed).toBe(true);
    expect(blocks.map((block) => [block.index, block.info])).toEqual([
      [0, 'ts file=src/a.ts'],
      [1, 'py file=b.py'],
      [2, 'ts path=c.ts'],
    ]);
  });

  it('returns every fenced block with all, non-candidates numbered -1', () => {
    const { blocks } = scanFences(doc, { all: true });
    expect(blocks.map((block) => [block.index, block.candidate, block.lang])).toEqual([
      [-1, false, 'bash'],
      [0, true, 'ts'],
      [1, true, 'py'],
      [2, true, 'ts'],
    ]);
  });

  it('describes a valid block completely', () => {
    expect(scanFences(doc).blocks[0]).toEqual({
      index: 0,
      candidate: true,
      lang: 'ts',
      declaredFile: 'src/a.ts',
      info: 'ts file=src/a.ts',
      rawInfo: 'ts file=src/a.ts',
      fenceChar: '`',
      fenceLength: 3,
      content: 'export const a = 1;\n',
      closed: true,
      startLine: 7,
      endLine: 9,
      verdict: { valid: true },
    });
  });

  it('judges each candidate', () => {
    expect(
      scanFences(doc).blocks.map((block) => (block.verdict.valid ? 'valid' : block.verdict.code)),
    ).toEqual(['valid', 'tilde_fence', 'unsupported_key']);
  });

  it('keeps the raw info string next to the decoded one', () => {
    const [block] = scanFences('```ts file=a\\_b&#46;ts\n```\n').blocks;
    expect([block?.rawInfo, block?.info, block?.declaredFile]).toEqual([
      'ts file=a\\_b&#46;ts',
      'ts file=a_b.ts',
      'a_b.ts',
    ]);
  });

  it('parses even a text with no fence', () => {
    expect(scanFences('just text\n')).toEqual({ blocks: [], parsed: true });
  });
});

describe('scanFences time limit', () => {
  // 8,000 lazy continuation lines in a quote: CommonMark parsing of this is superlinear in micromark (seconds).
  const hostile = `${'> a\nb\n'.repeat(8_000)}\n\`\`\`ts file=a.ts\nx\n\`\`\`\n`;

  it('abandons a scan that overruns timeLimitMs and reports no blocks', () => {
    expect(scanFences(hostile, { parser: 'micromark', timeLimitMs: 1 })).toEqual({
      blocks: [],
      parsed: true,
      timedOut: true,
    });
    expect(scanFences(hostile, { timeLimitMs: -1 })).toEqual({ blocks: [], parsed: true, timedOut: true });
  });

  it('changes nothing when the limit is not reached', () => {
    expect(scanFences(doc, { timeLimitMs: 60_000 })).toEqual(scanFences(doc));
  });
});

// The scanner's results on the hostile inputs whose linear cost `npm run bench` measures (t(2n)/t(n)).
describe('scanFences with maxCandidates', () => {
  const many = [
    '```ts file=a.ts\nx\n```\n',
    '~~~ts file=b.ts\n~~~\n',
    '```json artifact=plan\n{}\n```\n',
    '```bash\nls\n```\n',
  ]
    .join('')
    .repeat(5);

  it.each(['scanner', 'micromark'] as const)(
    'keeps the first candidates exactly as an unlimited scan does and counts the rest by kind (%s)',
    (parser) => {
      const unlimited = scanFences(many, { parser });
      const limited = scanFences(many, { parser, maxCandidates: 4 });
      expect(unlimited.blocks).toHaveLength(15);
      expect(unlimited.omitted).toBeUndefined();
      expect(limited.blocks).toEqual(unlimited.blocks.slice(0, 4));
      expect(limited.omitted).toEqual({ count: 11, byKind: { tilde_fence: 4, artifact: 4, valid: 3 } });
    },
  );

  it('keeps non-candidates with all, whatever the limit', () => {
    const limited = scanFences(many, { all: true, maxCandidates: 1 });
    expect(limited.blocks.filter((block) => !block.candidate)).toHaveLength(5);
    expect(limited.blocks.filter((block) => block.candidate).map((block) => block.index)).toEqual([0]);
    expect(limited.omitted?.count).toBe(14);
  });

  it('reports nothing omitted when the candidates fit', () => {
    expect(scanFences(many, { maxCandidates: 15 }).omitted).toBeUndefined();
  });
});

describe('scanFences with the scanner on hostile input', () => {
  const candidate = '```ts file=a.ts\nx\n```\n';

  it('finds the block after 3 lines of 20,000 nested list markers', () => {
    const { blocks } = scanFences(`${`${'- '.repeat(20_000)}x\n`.repeat(3)}${candidate}`);
    expect(
      blocks.map(({ declaredFile, content, startLine, verdict }) => ({
        declaredFile,
        content,
        startLine,
        verdict,
      })),
    ).toEqual([{ declaredFile: 'a.ts', content: 'x\n', startLine: 4, verdict: { valid: true } }]);
  });

  it('finds the block after 50,000 lazy lines in a block quote', () => {
    const { blocks } = scanFences(`${'> a\nb\n'.repeat(50_000)}\n${candidate}`);
    expect(
      blocks.map(({ declaredFile, startLine, closed }) => ({ declaredFile, startLine, closed })),
    ).toEqual([{ declaredFile: 'a.ts', startLine: 100_002, closed: true }]);
  });
});
