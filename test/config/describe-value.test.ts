import { describe, expect, it } from 'vitest';
import { describeValue } from '../../src/config/describe-value.js';

describe('describeValue', () => {
  it.each<[unknown, string]>([
    [undefined, 'nothing'],
    [null, 'nothing'],
    ['yes', '"yes"'],
    ['', '""'],
    ['a"b', '"a\\"b"'],
    ['x'.repeat(61), `"${'x'.repeat(60)}…"`],
    [1.5, '1.5'],
    [true, 'true'],
    [10n, '10'],
    [[1], 'a list'],
    [{ a: 1 }, 'a mapping'],
    [new Date(0), 'a mapping'],
  ])('describes %o as %s', (value, expected) => {
    expect(describeValue(value)).toBe(expected);
  });
});

describe('describeValue and secrets', () => {
  it('shows a secret redacted, before cutting the text', () => {
    const token = 'ghp_' + 'EXtMlRz4AnKCdkZBwtNGaKx82cVGEIBLG9HR';
    expect(describeValue(`${'x'.repeat(40)} ${token}`)).toBe(JSON.stringify(`${'x'.repeat(40)} [REDACTED]`));
  });
});
