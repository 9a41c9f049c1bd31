import { describe, expect, it } from 'vitest';
import { formatBytes, formatDuration } from '../../../src/report/html/format-figures.js';

describe('formatDuration', () => {
  it.each([
    [null, '-'],
    [Number.NaN, '-'],
    [0, '0 ms'],
    [850.4, '850 ms'],
    [1000, '1.0 s'],
    [12_400, '12.4 s'],
    [185_000, '3 min 05 s'],
  ])('%s ms reads as %s', (ms, expected) => {
    expect(formatDuration(ms)).toBe(expected);
  });
});

describe('formatBytes', () => {
  it.each([
    [0, '0 B'],
    [1023, '1023 B'],
    [1024, '1.0 KB'],
    [4300, '4.2 KB'],
    [1.3 * 1024 * 1024, '1.3 MB'],
  ])('%s bytes reads as %s', (bytes, expected) => {
    expect(formatBytes(bytes)).toBe(expected);
  });
});
