import { describe, expect, it } from 'vitest';
import { parseIngestFlag } from '../../src/config/parse-ingest-flag.js';

describe('parseIngestFlag', () => {
  it.each([
    ['on', true],
    ['1', true],
    ['False', false],
    ['', undefined],
    ['yes', undefined],
  ])('reads %j as %s', (text, value) => {
    expect(parseIngestFlag(text)).toBe(value);
  });
});
