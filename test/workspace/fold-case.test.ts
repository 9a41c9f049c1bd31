import { describe, expect, it } from 'vitest';
import { foldCase } from '../../src/workspace/paths/fold-case.js';

describe('foldCase', () => {
  it.each([
    ['ABC', 'abc'],
    ['ß', 'ss'],
    ['ı', 'i'],
    ['ſ', 's'],
    ['\u212a', 'k'],
  ])('folds %s to %s', (text, folded) => {
    expect(foldCase(text)).toBe(folded);
  });
});
