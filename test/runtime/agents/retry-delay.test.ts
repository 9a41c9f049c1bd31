import { describe, expect, it } from 'vitest';
import { parseRetryAfter, retryDelayMs } from '../../../src/runtime/agents/retry-delay.js';

const NOW = Date.parse('2025-01-01T00:00:00Z');

describe('parseRetryAfter', () => {
  it.each<[string, Record<string, string>, number | undefined]>([
    ['no header', {}, undefined],
    ['zero seconds', { 'retry-after': '0' }, 0],
    ['whole seconds', { 'retry-after': '7' }, 7000],
    ['an HTTP date 5 s ahead', { 'retry-after': 'Wed, 01 Jan 2025 00:00:05 GMT' }, 5000],
    ['an HTTP date in the past', { 'retry-after': 'Tue, 31 Dec 2024 23:59:00 GMT' }, 0],
    ['a negative number', { 'retry-after': '-1' }, undefined],
    ['fractional seconds', { 'retry-after': '1.5' }, undefined],
    ['garbage', { 'retry-after': 'soon' }, undefined],
    ['retry-after-ms, preferred', { 'retry-after-ms': '250', 'retry-after': '9' }, 250],
    ['a bad retry-after-ms, falling back', { 'retry-after-ms': 'x', 'retry-after': '2' }, 2000],
  ])('reads %s', (_case, headers, expected) => {
    expect(parseRetryAfter(new Headers(headers), NOW)).toBe(expected);
  });
});

describe('retryDelayMs', () => {
  const options = { baseDelayMs: 500, maxDelayMs: 20_000 };

  it.each([
    [0, 0, 250],
    [0, 0.999, 500],
    [1, 0, 500],
    [3, 0.5, 3000],
    [10, 0.999, 19_990],
    [10, 0, 10_000],
  ])('after attempt %i with random %f waits %i ms', (attempt, random, expected) => {
    expect(retryDelayMs(attempt, undefined, { ...options, random: () => random })).toBe(expected);
  });

  it('takes the server Retry-After over backoff, capped at maxDelayMs', () => {
    expect(retryDelayMs(5, 1200, { ...options, random: () => 0.5 })).toBe(1200);
    expect(retryDelayMs(0, 90_000, { ...options, random: () => 0.5 })).toBe(20_000);
  });
});
