import { describe, expect, it } from 'vitest';
import { redactFields } from '../../src/events/index.js';

const TOKEN = ['ghp_', 'EXtMlRz4AnKCdkZBwtNGaKx82cVGEIBLG9HR'].join('');

describe('redactFields', () => {
  it('redacts strings at every depth, in objects, arrays, maps and sets', () => {
    const fields = {
      path: `workspace/${TOKEN}.txt`,
      nested: { list: [`a ${TOKEN}`, { deeper: `password=${TOKEN}` }] },
      map: new Map([['k', TOKEN]]),
      set: new Set([TOKEN]),
    };
    expect(JSON.stringify(redactFields(fields))).not.toContain(TOKEN);
    expect(redactFields(fields)).toEqual({
      path: 'workspace/[REDACTED].txt',
      nested: { list: ['a [REDACTED]', { deeper: 'password=[REDACTED]' }] },
      map: { k: '[REDACTED]' },
      set: ['[REDACTED]'],
    });
  });

  it('turns an Error into type, message, own fields, stack and cause, all redacted', () => {
    const cause = new TypeError(`bad ${TOKEN}`);
    const error = Object.assign(new Error(`open workspace/${TOKEN}`, { cause }), {
      code: 'ENOENT',
      errno: -2,
    });
    const redacted = redactFields({ error }) as { error: Record<string, unknown> };
    expect(redacted.error).toMatchObject({
      type: 'Error',
      message: 'open workspace/[REDACTED]',
      code: 'ENOENT',
      errno: -2,
      cause: { type: 'TypeError', message: 'bad [REDACTED]' },
    });
    expect(String(redacted.error['stack'])).toContain('open workspace/[REDACTED]');
    expect(JSON.stringify(redacted)).not.toContain(TOKEN);
  });

  it('writes bytes as their length, never their contents', () => {
    expect(
      redactFields({
        buffer: Buffer.from('abc'),
        array: new Uint8Array(7),
        raw: new ArrayBuffer(5),
      }),
    ).toEqual({ buffer: '[3 bytes]', array: '[7 bytes]', raw: '[5 bytes]' });
  });

  it('makes every value JSON-safe: bigint, dates, URLs, undefined and functions', () => {
    expect(
      redactFields({
        big: 2n ** 70n,
        date: new Date('2025-01-02T03:04:05.678Z'),
        invalidDate: new Date(Number.NaN),
        url: new URL('https://user:pa55word@example.com/x'),
        missing: undefined,
        callback: () => 1,
        list: [undefined, 1],
      }),
    ).toEqual({
      big: '1180591620717411303424',
      date: '2025-01-02T03:04:05.678Z',
      invalidDate: null,
      url: 'https://[REDACTED]@example.com/x',
      list: [null, 1],
    });
  });

  it('cuts cycles and very deep nesting instead of throwing', () => {
    const cyclic: Record<string, unknown> = { name: 'loop' };
    cyclic['self'] = cyclic;
    let deep: Record<string, unknown> = { leaf: true };
    for (let level = 0; level < 20; level += 1) deep = { deep };
    const redacted = redactFields({ cyclic, deep });
    expect(redacted['cyclic']).toEqual({ name: 'loop', self: '[Circular]' });
    expect(JSON.stringify(redacted)).toContain('[Truncated]');
  });

  it('keeps a shared object that is not a cycle', () => {
    const shared = { id: 1 };
    expect(redactFields({ a: shared, b: [shared, shared] })).toEqual({
      a: { id: 1 },
      b: [{ id: 1 }, { id: 1 }],
    });
  });

  it('does not modify its input', () => {
    const fields = { reason: `token=${TOKEN}`, nested: { value: TOKEN } };
    const copy = structuredClone(fields);
    redactFields(fields);
    expect(fields).toEqual(copy);
  });
});
