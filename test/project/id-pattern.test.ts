import { describe, expect, it } from 'vitest';
import { ID_PATTERN, ID_RULE, isId, MAX_ID_LENGTH, sanitizeId } from '../../src/project/id-pattern.js';

describe('the id pattern', () => {
  it('allows 1 to 128 letters, digits, dots, underscores and dashes, starting with a letter or digit', () => {
    expect(MAX_ID_LENGTH).toBe(128);
    expect(isId('a'.repeat(MAX_ID_LENGTH))).toBe(true);
    expect(isId('a'.repeat(MAX_ID_LENGTH + 1))).toBe(false);
    expect(isId('_a')).toBe(false);
  });

  it('states the rule in words, quoting the pattern itself', () => {
    expect(ID_RULE).toContain(ID_PATTERN.source);
    expect(ID_RULE).toMatch(/^must match /);
  });
});

describe('sanitizeId', () => {
  it.each([
    ['docs plan', 'docs-plan'],
    ['--x', 'x'],
    ['ünï', 'n-'],
    ['///', 'fallback'],
    ['x'.repeat(200), 'x'.repeat(128)],
  ])('turns %j into %j', (text, id) => {
    const sanitized = sanitizeId(text, 'fallback');
    expect(sanitized).toBe(id);
    expect(isId(sanitized)).toBe(true);
  });

  it('caps at a shorter length when asked', () => {
    expect(sanitizeId('abcdef', 'f', 3)).toBe('abc');
  });
});
