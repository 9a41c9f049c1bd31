// East Asian Wide (W) and Fullwidth (F) blocks of UAX #11 that a path or a table cell can hold.
const WIDE_RANGES: readonly (readonly [number, number])[] = [
  [0x1100, 0x115f],
  [0x2e80, 0x303e],
  [0x3041, 0x33ff],
  [0x3400, 0x4dbf],
  [0x4e00, 0x9fff],
  [0xa000, 0xa4cf],
  [0xa960, 0xa97f],
  [0xac00, 0xd7a3],
  [0xf900, 0xfaff],
  [0xfe10, 0xfe19],
  [0xfe30, 0xfe6f],
  [0xff00, 0xff60],
  [0xffe0, 0xffe6],
  [0x16fe0, 0x16fe4],
  [0x17000, 0x18aff],
  [0x1b000, 0x1b2ff],
  [0x1f300, 0x1f64f],
  [0x1f900, 0x1f9ff],
  [0x20000, 0x2fffd],
  [0x30000, 0x3fffd],
];
const ZERO_WIDTH = /^[\p{Mn}\p{Me}\p{Cf}\p{Cc}]$/u;
const EMOJI = /\p{Emoji_Presentation}|\uFE0F/u;
// Made on first use: building a segmenter loads ICU's break data (~30 ms), which most commands never need.
let segmenter: Intl.Segmenter | undefined;

function isWide(codePoint: number): boolean {
  return WIDE_RANGES.some(([low, high]) => codePoint >= low && codePoint <= high);
}

/**
 * The number of terminal columns `text` takes: East Asian wide and fullwidth characters and emoji count 2,
 * combining marks and format characters 0, everything else 1 (per grapheme cluster, UAX #11 and #29).
 */
export function displayWidth(text: string): number {
  // Plain ASCII is the common case: one column per character.
  if (/^[\x20-\x7e]*$/.test(text)) return text.length;
  let width = 0;
  segmenter ??= new Intl.Segmenter('en', { granularity: 'grapheme' });
  for (const { segment } of segmenter.segment(text)) {
    const first = segment.codePointAt(0) ?? 0;
    if (EMOJI.test(segment) || isWide(first)) width += 2;
    else if (!ZERO_WIDTH.test(String.fromCodePoint(first))) width += 1;
  }
  return width;
}

/** Pads `text` with spaces to `width` display columns, at the end (or the start, for numbers). */
export function padToWidth(text: string, width: number, align: 'start' | 'end' = 'end'): string {
  const padding = ' '.repeat(Math.max(0, width - displayWidth(text)));
  return align === 'end' ? text + padding : padding + text;
}
