import { describe, expect, it } from 'vitest';
import { generateDocument } from './generate-document.js';

const SAMPLE = Array.from({ length: 2_000 }, (_, index) => generateDocument(index + 1));

/** How many documents of the sample contain `pattern`. */
function documentsWith(pattern: RegExp): number {
  return SAMPLE.filter((markdown) => pattern.test(markdown)).length;
}

describe('generateDocument', () => {
  it('gives the same document for the same seed, and another for another seed', () => {
    expect(generateDocument(42)).toBe(generateDocument(42));
    expect(generateDocument(42)).not.toBe(generateDocument(43));
  });

  it('keeps documents between 50 B and about 4 KB, mostly small', () => {
    const lengths = SAMPLE.map((markdown) => markdown.length).sort((a, b) => a - b);
    expect(lengths[0]).toBeGreaterThanOrEqual(50);
    expect(lengths.filter((length) => length > 4_096 * 1.25)).toEqual([]);
    expect(lengths[Math.floor(lengths.length / 2)]).toBeLessThan(2_000);
  });

  // Each row: what the corpus must hold, and in how many of 2,000 documents at least.
  it.each([
    ['a backtick fence', /(^|[\n\r>\s])```/, 1_000],
    ['a tilde fence', /(^|[\n\r>\s])~~~/, 500],
    ['a fence of length 8', /(^|[^`])````````($|[^`])/, 100],
    ['a file= info string', /```\w* file=/, 300],
    ['a block quote nested 5 deep', /(>[ \t]*){5}/, 30],
    ['a list item inside a list item', /^[ \t]*[-*+][ \t]+[-*+0-9]/m, 100],
    ['an ordered item with ")"', /(^|[\n\r])[ \t]*\d+\)/, 200],
    ['a tab', /\t/, 1_000],
    ['CRLF endings', /\r\n/, 200],
    ['lone CR endings', /\r(?!\n)/, 200],
    ['a byte order mark', /^\uFEFF/, 20],
    ['an HTML block of kind 1', /<(script|pre|style|textarea)/, 100],
    ['an HTML block of kind 2', /<!--/, 100],
    ['an HTML block of kind 3', /<\?/, 100],
    ['an HTML block of kind 4', /<![A-Z]/, 100],
    ['an HTML block of kind 5', /<!\[CDATA\[/, 100],
    ['an HTML block of kind 6', /<(div|table|details)|<\/p>/i, 100],
    ['an HTML block of kind 7', /<custom-tag|<x-y\/>/, 100],
    ['a link reference definition', /\[foo\]:/, 100],
    ['a setext underline', /(^|[\n\r])[ \t>]*={3}/, 100],
    ['a thematic break', /(^|[\n\r])[ \t>]*(\*\*\*|___|- - -)/, 100],
  ] as const)('holds %s in enough documents', (_, pattern, atLeast) => {
    expect(documentsWith(pattern)).toBeGreaterThanOrEqual(atLeast);
  });
});
