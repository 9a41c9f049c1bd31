import { describe, expect, it } from 'vitest';
import { LineReader } from '../../src/mcp/line-reader.js';
import type { OversizedLine } from '../../src/mcp/line-reader.js';

/** Feeds `chunks` to a reader of `maxBytes` and lists what it handed on, in order. */
function read(maxBytes: number, chunks: readonly string[], end = false): (string | OversizedLine)[] {
  const seen: (string | OversizedLine)[] = [];
  const reader = new LineReader(maxBytes, {
    line: (line) => seen.push(line.toString('utf8')),
    oversized: (line) => seen.push(line),
  });
  for (const chunk of chunks) reader.push(Buffer.from(chunk, 'utf8'));
  if (end) reader.end();
  return seen;
}

describe('LineReader', () => {
  it('hands on each line once its newline arrives, whatever the chunks', () => {
    expect(read(100, ['ab', 'c\nde', 'f\n\ng\n'])).toEqual(['abc', 'def', '', 'g']);
  });

  it('keeps a line without a newline until the end of the stream', () => {
    expect(read(100, ['a\nb'])).toEqual(['a']);
    expect(read(100, ['a\nb'], true)).toEqual(['a', 'b']);
    expect(read(100, ['a\n'], true)).toEqual(['a']);
  });

  it('takes a line of exactly the limit and refuses one byte more, keeping only its edges', () => {
    expect(read(4, ['abcd\n'])).toEqual(['abcd']);
    const [oversized, next] = read(4, ['ab', 'cde', 'f\nok\n']);
    expect(oversized).toMatchObject({ bytes: 6 });
    expect((oversized as OversizedLine).head.toString()).toBe('abcdef'.slice(0, 6));
    expect((oversized as OversizedLine).tail.toString()).toBe('abcdef');
    expect(next).toBe('ok');
  });

  it('keeps the first and last KiB of a long oversized line, not the rest', () => {
    const body = `${'h'.repeat(1024)}${'m'.repeat(100_000)}${'t'.repeat(1024)}`;
    const chunks = body.match(/.{1,4000}/gs) ?? [];
    const [oversized] = read(2000, [...chunks, '\n']);
    expect(oversized).toMatchObject({ bytes: body.length });
    expect((oversized as OversizedLine).head.toString()).toBe('h'.repeat(1024));
    expect((oversized as OversizedLine).tail.toString()).toBe('t'.repeat(1024));
  });

  it('reports an oversized line still open at the end of the stream', () => {
    expect(read(2, ['abcdef'], true)).toEqual([expect.objectContaining({ bytes: 6 })]);
  });
});
