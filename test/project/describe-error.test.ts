import { describe, expect, it } from 'vitest';
import { describeError } from '../../src/project/describe-error.js';

describe('describeError', () => {
  it.each([
    [new Error('disk full'), 'disk full'],
    [new RangeError('bad'), 'bad'],
    ['a string', 'a string'],
    [42, '42'],
    [undefined, 'undefined'],
  ])('describes %j as %j', (error, text) => {
    expect(describeError(error)).toBe(text);
  });
});
