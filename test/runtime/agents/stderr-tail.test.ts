import { describe, expect, it } from 'vitest';
import { StderrTail } from '../../../src/runtime/agents/stderr-tail.js';

function tailOf(...chunks: string[]): string {
  const tail = new StderrTail();
  for (const chunk of chunks) tail.push(Buffer.from(chunk, 'utf8'));
  return tail.excerpt();
}

describe('StderrTail', () => {
  it('is empty when nothing was written', () => {
    expect(tailOf()).toBe('');
    expect(tailOf('\n\n')).toBe('');
  });

  it('keeps the last 20 lines', () => {
    const lines = Array.from({ length: 100 }, (_, index) => `line ${index + 1}`);
    const excerpt = tailOf(lines.join('\n') + '\n');
    expect(excerpt.split('\n')).toEqual(lines.slice(-20));
  });

  it('keeps at most 2 KB of long lines, marking the cut', () => {
    const excerpt = tailOf(`${'a'.repeat(5000)}\n`, `${'b'.repeat(5000)}\n`);
    expect(excerpt.length).toBe(2049);
    expect(excerpt.startsWith('…')).toBe(true);
    expect(excerpt.endsWith('b')).toBe(true);
  });

  it('stays bounded however much is written, and never starts with half a line', () => {
    const tail = new StderrTail();
    for (let chunk = 0; chunk < 2000; chunk += 1)
      tail.push(Buffer.from(`chunk ${chunk} ${'x'.repeat(1000)}\n`));
    const excerpt = tail.excerpt();
    expect(excerpt.length).toBeLessThanOrEqual(2049);
    expect(excerpt.endsWith(`chunk 1999 ${'x'.repeat(1000)}`)).toBe(true);
  });

  it('redacts credentials, including ones split across chunks', () => {
    const excerpt = tailOf('Authorization: Bearer abc', 'def123456789\n', 'password=hunter2\n');
    expect(excerpt).toBe('Authorization: [REDACTED]\npassword=[REDACTED]');
  });
});
