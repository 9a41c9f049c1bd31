import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_FIX_ATTEMPTS, budgetsSchema } from '../../../src/contracts/index.js';

describe('budgetsSchema', () => {
  it.each([
    [{}, {}],
    [{ max_minutes: 30 }, { max_minutes: 30 }],
    [{ max_minutes: 0.5 }, { max_minutes: 0.5 }],
    [{ max_agent_calls: 1 }, { max_agent_calls: 1 }],
    [{ max_fix_attempts: 0 }, { max_fix_attempts: 0 }],
    [
      { max_minutes: 90, max_agent_calls: 40, max_fix_attempts: 3 },
      { max_minutes: 90, max_agent_calls: 40, max_fix_attempts: 3 },
    ],
  ])('accepts %j', (input, expected) => {
    expect(budgetsSchema.parse(input)).toEqual(expected);
  });

  it.each([
    [{ max_minutes: 0 }, 'max_minutes', 'must be more than 0; write max_minutes: 30'],
    [{ max_minutes: -5 }, 'max_minutes', 'must be more than 0; write max_minutes: 30'],
    [{ max_minutes: '30' }, 'max_minutes', /^expected a number of minutes, got .*; write max_minutes: 30$/],
    [{ max_agent_calls: 0 }, 'max_agent_calls', 'must be 1 or more; write max_agent_calls: 20'],
    [{ max_agent_calls: 2.5 }, 'max_agent_calls', 'expected a whole number; write it as max_agent_calls: 20'],
    [{ max_fix_attempts: -1 }, 'max_fix_attempts', 'must be 0 or more; write it as max_fix_attempts: 2'],
    [
      { max_fix_attempts: 'two' },
      'max_fix_attempts',
      /^expected a whole number, got .*; write it as max_fix_attempts: 2$/,
    ],
    [{ max_tokens: 1000 }, '', /max_tokens/],
  ] as const)('refuses %j at %j', (input, key, message) => {
    const parsed = budgetsSchema.safeParse(input);
    expect(parsed.success).toBe(false);
    if (parsed.success) return;
    const [issue] = parsed.error.issues;
    expect(issue?.path.join('.')).toBe(key);
    if (typeof message === 'string') expect(issue?.message).toBe(message);
    else expect(issue?.message).toMatch(message);
  });

  it('re-asks twice when no budget says otherwise', () => {
    expect(DEFAULT_MAX_FIX_ATTEMPTS).toBe(2);
  });
});
