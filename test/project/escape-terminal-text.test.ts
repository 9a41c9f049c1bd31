import { describe, expect, it } from 'vitest';
import { escapeLineText, escapeTerminalText } from '../../src/project/index.js';

describe('escapeTerminalText', () => {
  it.each([
    ['a right-to-left override', 'a\u202eb.ts', 'a\\u202eb.ts'],
    ['a bell and an escape sequence', 'c\u0007d\u001b[31m', 'c\\u0007d\\u001b[31m'],
    ['a C1 control and DEL', 'x\u0085y\u007f', 'x\\u0085y\\u007f'],
    ['isolates and marks', '\u2066\u2069\u200e\u200f\u061c', '\\u2066\\u2069\\u200e\\u200f\\u061c'],
    ['a carriage return inside the text', 'ok\rEVIL\n', 'ok\\u000dEVIL\n'],
  ])('writes %s as \\u escapes', (_name, text, shown) => {
    expect(escapeTerminalText(text)).toBe(shown);
  });

  it("keeps tabs, line feeds, plain Unicode and the progress line's carriage returns", () => {
    expect(escapeTerminalText('a\tb\nc é 日本 😀')).toBe('a\tb\nc é 日本 😀');
    expect(escapeTerminalText('\r  ingesting 3/10')).toBe('\r  ingesting 3/10');
    expect(escapeTerminalText('\r          \r')).toBe('\r          \r');
    expect(escapeTerminalText('+a\r\n+b\r\n')).toBe('+a\r\n+b\r\n');
  });

  it('leaves JSON parsing to the same values', () => {
    const value = { path: 'a\u202eb\u0085.ts' };
    expect(JSON.parse(escapeTerminalText(JSON.stringify(value)))).toEqual(value);
  });
});

describe('escapeLineText', () => {
  it.each([
    ['a line feed', 'a\nb', 'a\\u000ab'],
    ['a carriage return at the end', 'a\r', 'a\\u000d'],
    ['a tab', 'a\tb', 'a\\u0009b'],
    ['an escape sequence', '\u001b[2J', '\\u001b[2J'],
    ['a right-to-left override', 'x\u202e.ts', 'x\\u202e.ts'],
  ])('writes %s as a \\u escape, so one field stays on its line', (_name, text, shown) => {
    expect(escapeLineText(text)).toBe(shown);
  });

  it('keeps plain Unicode as it is', () => {
    expect(escapeLineText('src/é/日本 😀.ts')).toBe('src/é/日本 😀.ts');
  });
});
