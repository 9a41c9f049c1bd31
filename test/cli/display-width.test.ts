import { describe, expect, it } from 'vitest';
import { displayWidth, padToWidth } from '../../src/cli/render/display-width.js';

describe('displayWidth', () => {
  it.each([
    ['src/a.ts', 8],
    ['文档/计划.md', 12],
    ['ｆｕｌｌ', 8],
    ['한국어', 6],
    ['e\u0301', 1],
    ['👍', 2],
    ['', 0],
  ])('%j is %i columns wide', (text, width) => {
    expect(displayWidth(text)).toBe(width);
  });
});

describe('padToWidth', () => {
  it('pads by display columns, at the end or at the start', () => {
    expect(padToWidth('计划', 6)).toBe('计划  ');
    expect(padToWidth('42', 5, 'start')).toBe('   42');
    expect(padToWidth('too wide', 3)).toBe('too wide');
  });
});
