import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { textSchema } from '../../src/config/text-schema.js';
import { withRules } from '../../src/config/with-rules.js';

describe('withRules', () => {
  const schema = withRules(z.strictObject({ name: textSchema('name: x') }), (value) =>
    (value as { name?: unknown }).name === 'bad'
      ? [{ path: ['name'], message: 'name is bad; pick another', params: { token: 'bad' } }]
      : [],
  );

  it('adds the rule issues to the schema, with their path and params', () => {
    const result = schema.safeParse({ name: 'bad' });
    expect(result.success).toBe(false);
    expect(result.error?.issues).toEqual([
      expect.objectContaining({
        code: 'custom',
        path: ['name'],
        message: 'name is bad; pick another',
        params: { token: 'bad' },
      }),
    ]);
  });

  it('runs the rules even when the shape has issues, so every problem comes at once', () => {
    const messages = schema.safeParse({ name: 'bad', extra: 1 }).error?.issues.map((issue) => issue.code);
    expect(messages).toEqual(['unrecognized_keys', 'custom']);
  });

  it('passes a value that breaks no rule', () => {
    expect(schema.parse({ name: 'good' })).toEqual({ name: 'good' });
  });
});

describe('textSchema', () => {
  it.each([
    [undefined, 'missing; add name: x'],
    [3, 'expected text, got 3; write it as a string, such as name: x'],
  ])('explains %j', (input, message) => {
    expect(textSchema('name: x').safeParse(input).error?.issues[0]?.message).toBe(message);
  });
});
