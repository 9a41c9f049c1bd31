import { describe, expect, it } from 'vitest';
import { firstLineOf, quoteSourceText } from '../../src/config/quote-source-text.js';

const TOKEN = 'ghp_QuoteSourceQuoteSourceQuoteSource1234';

describe('quoteSourceText', () => {
  it.each<[string, string, string]>([
    ['a short line', 'name: x', '"name: x"'],
    ['the first of several lines', 'first\nsecond', '"first…"'],
    ['a CRLF line', 'first\r\nsecond', '"first…"'],
    ['a Unicode line separator', 'first\u2028second', '"first…"'],
    ['a line over 60 characters', 'x'.repeat(61), `"${'x'.repeat(60)}…"`],
    ['a secret, redacted before the cut', `${'x'.repeat(40)} ${TOKEN}`, `"${'x'.repeat(40)} [REDACTED]"`],
    ['a control character, escaped', 'a\u0000b', '"a\\u0000b"'],
  ])('quotes %s', (_case, text, expected) => {
    expect(quoteSourceText(text)).toBe(expected);
  });

  it('cuts at the given length', () => {
    expect(quoteSourceText('abcdef', 3)).toBe('"abc…"');
  });
});

describe('firstLineOf', () => {
  it('drops a code frame after the first line of a message', () => {
    const pretty = 'Implicit keys need to be on a single line at line 3, column 1:\n\npassword: hunter2\n^\n';
    expect(firstLineOf(pretty)).toBe('Implicit keys need to be on a single line at line 3, column 1:');
  });
});
