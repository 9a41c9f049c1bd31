import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { FenceParser } from '../../src/project/index.js';
import { parseFences } from '../../src/fence/parse-fences.js';
import { scanFences } from '../../src/fence/scan-fences.js';

const propertyRuns = Number(process.env.FENCE_PROPERTY_RUNS ?? 300);
/** Every test runs with each parser, so that both hold whichever is the default. */
const parsers: readonly FenceParser[] = ['scanner', 'micromark'];

describe.each(parsers)('parseFences with parser %s', (parser) => {
  it('skips parsing when no line can hold a candidate', () => {
    expect(parseFences('# Title\n\n```bash\nx = 1\n```\n', { parser })).toEqual({
      blocks: [],
      parsed: false,
    });
  });

  it('parses when a line may hold a candidate, even if it turns out to hold none', () => {
    expect(parseFences('use ```x=1``` inline\n', { parser })).toEqual({ blocks: [], parsed: true });
  });

  it('with all, skips parsing only when there is no fence run at all', () => {
    expect(parseFences('text = 1\n', { all: true, parser })).toEqual({ blocks: [], parsed: false });
    expect(parseFences('```bash\nx\n```\n', { all: true, parser }).blocks).toHaveLength(1);
  });

  it('flags a same-length markdown block CommonMark closed at its inner closing line', () => {
    const markdown = '```md file=README.md\n# T\n```bash\nnpm i\n```\nmore\n```\n';
    const blocks = parseFences(markdown, { all: true, parser }).blocks;
    expect(blocks.map((block) => [block.index, block.content, block.closed, block.verdict])).toEqual([
      [
        0,
        '# T\n```bash\nnpm i\n',
        true,
        expect.objectContaining({ valid: false, code: 'ambiguous_nesting' }),
      ],
      [-1, '', false, expect.objectContaining({ valid: false })],
    ]);
  });

  it('accepts the same markdown block fenced with four backticks', () => {
    const markdown = '````md file=README.md\n# T\n```bash\nnpm i\n```\nmore\n````\n';
    const [block] = parseFences(markdown, { parser }).blocks;
    expect(block?.verdict).toEqual({ valid: true });
    expect(block?.content).toBe('# T\n```bash\nnpm i\n```\nmore\n');
  });

  it('reports a path joined to the language with : and leaves ordinary blocks alone', () => {
    const markdown = [
      '```c++\nint a;\n```',
      '```js {1,3}\nlet a;\n```',
      '```ts:line-numbers\nlet b;\n```',
      '```yaml\nkey: value\n```',
      '```ts:src/x.ts\nexport const x = 1;\n```',
      '```ts title=src/y.ts\nexport const y = 1;\n```',
    ].join('\n\n');
    const { blocks } = parseFences(markdown, { parser });
    expect(blocks.map((block) => [block.index, block.lang, block.declaredFile, block.verdict])).toEqual([
      [
        0,
        'ts',
        'src/x.ts',
        {
          valid: false,
          code: 'lang_colon_path',
          message:
            "info string joins the path to the language with ':' (ts:src/x.ts); write ```ts file=src/x.ts",
        },
      ],
      [
        1,
        'ts',
        '',
        {
          valid: false,
          code: 'unsupported_key',
          message: 'info string uses title=; write ```ts file=src/y.ts',
        },
      ],
    ]);
  });

  it('calls a candidate cut off by the end of the document unterminated', () => {
    const [block] = parseFences('Here is the file:\n\n```ts file=src/a.ts\nexport const a =', {
      parser,
    }).blocks;
    expect(block).toMatchObject({ closed: false, verdict: { valid: false, code: 'unterminated' } });
  });

  it('judges deeply nested markdown candidates in linear time', () => {
    const depth = 300;
    const opening = Array.from(
      { length: depth },
      (_, level) => `${'`'.repeat(depth + 3 - level)}md file=${level}.md`,
    );
    const closing = Array.from({ length: depth }, (_, level) => '`'.repeat(level + 4));
    const { blocks } = parseFences([...opening, ...closing, ''].join('\n'), { parser });
    expect(blocks).toHaveLength(1);
    expect(blocks[0]?.verdict).toEqual({ valid: true });
  });
});

/** Lines made of pieces that sit near the pre-check's rules: fence runs, `=`, `&`, and all three line endings. */
const nearCandidateText = fc
  .array(
    fc.constantFrom(
      '```',
      '~~~',
      '``',
      '`',
      '~',
      '=',
      '&',
      '&#61;',
      '&equals;',
      '\\=',
      'file',
      'ts ',
      ' ',
      '\t',
      '> ',
      '- ',
      '    ',
      'x',
      '\n',
      '\r',
      '\r\n',
      '\uFEFF',
      '\u0000',
    ),
    { maxLength: 40 },
  )
  .map((pieces) => pieces.join(''));

describe.each(parsers)('the cheap pre-check with parser %s', (parser) => {
  it('never changes the blocks found, compared with always parsing', () => {
    fc.assert(
      fc.property(nearCandidateText, fc.boolean(), (markdown, all) => {
        expect(parseFences(markdown, { all, parser }).blocks).toEqual(
          scanFences(markdown, { all, parser }).blocks,
        );
      }),
      { numRuns: propertyRuns * 10 },
    );
  });
});
