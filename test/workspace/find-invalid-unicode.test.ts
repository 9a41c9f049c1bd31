import { describe, expect, it } from 'vitest';
import { findInvalidUnicode } from '../../src/workspace/paths/find-invalid-unicode.js';

describe('findInvalidUnicode', () => {
  it.each([
    ['a\ud800', 0xd800, 'lone surrogate'],
    ['\ufffd', 0xfffd, 'replacement character'],
    ['\ufdd0', 0xfdd0, 'noncharacter'],
    ['\u202e', 0x202e, 'bidirectional'],
    ['\u200b', 0x200b, 'invisible'],
    ['\u2024', 0x2024, 'path punctuation'],
    ['\u00a0', 0x00a0, 'whitespace'],
    ['\u2215', 0x2215, 'looks like'],
  ])('finds %j as U+%s (%s)', (text, codePoint, why) => {
    const found = findInvalidUnicode(text);
    expect(found?.codePoint).toBe(codePoint);
    expect(found?.why).toContain(why);
  });

  it.each(['plain.txt', 'café', '日本語', '😀', '\u00e9\u0301', 'a\\b:c/d.e f'])('accepts %j', (text) => {
    expect(findInvalidUnicode(text)).toBeUndefined();
  });
});
