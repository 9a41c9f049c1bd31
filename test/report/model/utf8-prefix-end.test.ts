import { describe, expect, it } from 'vitest';
import { utf8PrefixEnd } from '../../../src/report/model/utf8-prefix-end.js';

const bytes = new TextEncoder().encode('aé€😀'); // 1 + 2 + 3 + 4 bytes

describe('utf8PrefixEnd', () => {
  it.each([
    [0, 0],
    [1, 1],
    [2, 1], // inside é
    [3, 3],
    [5, 3], // inside €
    [6, 6],
    [9, 6], // inside 😀
    [10, 10],
    [99, 10],
  ])('cuts at most %i bytes back to %i, a character boundary', (max, end) => {
    expect(utf8PrefixEnd(bytes, max)).toBe(end);
    expect(() => new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(0, end))).not.toThrow();
  });
});
