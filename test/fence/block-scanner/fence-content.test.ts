import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FenceContent } from '../../../src/fence/block-scanner/fence-content.js';

type Piece = readonly ['text', number, number] | readonly ['spaces', number];

/** The content of a block made of `pieces` of `text`, as FenceContent puts it together. */
function contentOf(text: string, pieces: readonly Piece[]): string {
  const fence = new FenceContent(text);
  fence.open(0x60, 3, 0, 1, '');
  for (const piece of pieces) {
    if (piece[0] === 'spaces') fence.addSpaces(piece[1]);
    else fence.addSlice(piece[1], piece[2]);
  }
  return fence.finish(true, 2, false).content;
}

/** The same content concatenated piece by piece, NUL read as U+FFFD. */
function concatenated(text: string, pieces: readonly Piece[]): string {
  const joined = pieces
    .map((piece) => (piece[0] === 'spaces' ? ' '.repeat(piece[1]) : text.slice(piece[1], piece[2])))
    .join('');
  return joined.replaceAll('\0', '\uFFFD');
}

describe('FenceContent', () => {
  it.each<[string, string, Piece[]]>([
    ['no line', 'abc', []],
    ['one slice', 'abc\n', [['text', 0, 4]]],
    [
      'consecutive lines, one slice',
      'a\nb\n',
      [
        ['text', 0, 2],
        ['text', 2, 4],
      ],
    ],
    [
      'lines after container prefixes',
      '> a\n> b\n',
      [
        ['text', 2, 4],
        ['text', 6, 8],
      ],
    ],
    [
      'the columns left of a partly used tab, then the line',
      '-\t\tx\n',
      [
        ['spaces', 2],
        ['text', 3, 5],
      ],
    ],
    [
      'spaces between slices that touch',
      'ab',
      [
        ['text', 0, 1],
        ['spaces', 1],
        ['text', 1, 2],
      ],
    ],
    ['NUL read as U+FFFD', '> a\0\n', [['text', 2, 5]]],
    [
      'lone surrogates and a pair split between pieces',
      '\ud800\udc00\udfff',
      [
        ['text', 0, 1],
        ['spaces', 1],
        ['text', 1, 3],
      ],
    ],
  ])('puts together %s', (_name, text, pieces) => {
    expect(contentOf(text, pieces)).toBe(concatenated(text, pieces));
  });

  it('puts together 100,000 lines of a block quote, past many chunks of code units', () => {
    const text = '> \ud83d\ude00\0x\n'.repeat(100_000);
    const pieces = Array.from({ length: 100_000 }, (_, line): Piece => ['text', line * 7 + 2, line * 7 + 7]);
    expect(contentOf(text, pieces)).toBe(concatenated(text, pieces));
  });

  it('puts together any pieces as concatenating them would', () => {
    const piece = (length: number): fc.Arbitrary<Piece> =>
      fc.oneof(
        fc.integer({ min: 1, max: 6 }).map((spaces): Piece => ['spaces', spaces]),
        fc
          .tuple(fc.nat({ max: length }), fc.nat({ max: length }))
          .map(([a, b]): Piece => ['text', Math.min(a, b), Math.max(a, b)]),
      );
    fc.assert(
      fc.property(
        fc
          .string({ unit: 'binary', maxLength: 60 })
          .chain((text) => fc.tuple(fc.constant(text), fc.array(piece(text.length), { maxLength: 20 }))),
        ([text, pieces]) => contentOf(text, pieces) === concatenated(text, pieces),
      ),
      { numRuns: 2_000 },
    );
  });
});
