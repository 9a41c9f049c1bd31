import * as z from 'zod';
import { describe, expect, it } from 'vitest';
import {
  MAX_FIELD_ERRORS,
  fieldError,
  fieldErrorsOf,
  formatFieldPath,
} from '../../../src/contracts/index.js';

describe('formatFieldPath', () => {
  it.each<[PropertyKey[], string]>([
    [[], '(root)'],
    [['summary'], 'summary'],
    [['changed_files', 0, 'change'], 'changed_files[0].change'],
    [['issues', 12], 'issues[12]'],
    [['footers', 0, 'a key'], 'footers[0]["a key"]'],
    [['1st'], '["1st"]'],
  ])('formats %j as %s', (path, expected) => {
    expect(formatFieldPath(path)).toBe(expected);
  });
});

describe('fieldError', () => {
  it('puts path, expected and got into one message', () => {
    expect(fieldError(['outcome'], 'one of "a", "b"', '"c"')).toEqual({
      path: 'outcome',
      expected: 'one of "a", "b"',
      got: '"c"',
      message: 'outcome: expected one of "a", "b", got "c"',
    });
  });

  it('leaves got out when nothing was found', () => {
    expect(fieldError(['summary'], 'text', undefined)).toEqual({
      path: 'summary',
      expected: 'text',
      message: 'summary: expected text',
    });
  });
});

describe('fieldErrorsOf', () => {
  const schema = z.strictObject({
    count: z.number().int(),
    flag: z.boolean(),
    items: z.array(z.strictObject({ name: z.string() })),
  });
  const errorsFor = (value: unknown) => {
    const parsed = schema.safeParse(value, { reportInput: true });
    if (parsed.success) throw new Error('accepted');
    return fieldErrorsOf(parsed.error.issues, schema);
  };

  it('says what each wrong type must be and what it was', () => {
    expect(errorsFor({ count: 1.5, flag: 'yes', items: {} }).map((error) => error.message)).toEqual([
      'count: expected a whole number, got 1.5',
      'flag: expected true or false, got "yes"',
      'items: expected a list, got an object',
    ]);
  });

  it('suggests the closest allowed key for a misspelt one, nested too', () => {
    expect(errorsFor({ count: 1, flag: true, items: [{ nmae: 'x', name: 'y' }], flg: false })).toEqual([
      expect.objectContaining({ path: 'items[0].nmae', expected: 'no key "nmae"; did you mean "name"?' }),
      expect.objectContaining({ path: 'flg', expected: 'no key "flg"; did you mean "flag"?' }),
    ]);
  });

  it('lists the allowed keys when no key is close, and none without a schema', () => {
    const parsed = schema.safeParse({ count: 1, flag: true, items: [], zzzz: 1 });
    if (parsed.success) throw new Error('accepted');
    expect(fieldErrorsOf(parsed.error.issues, schema)[0]?.expected).toBe(
      'no key "zzzz" (allowed: count, flag, items)',
    );
    expect(fieldErrorsOf(parsed.error.issues)[0]?.expected).toBe('no key "zzzz" (allowed: none)');
  });

  it(`stops at ${String(MAX_FIELD_ERRORS)} errors`, () => {
    const items = Array.from({ length: 500 }, () => ({ name: 1 }));
    expect(errorsFor({ count: 1, flag: true, items })).toHaveLength(MAX_FIELD_ERRORS);
  });
});
