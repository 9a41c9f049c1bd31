/** How long to wait before the next attempt of a retried HTTP request. */
export interface RetryDelayOptions {
  /** The first backoff step; step n waits about `baseDelayMs * 2^n`. */
  readonly baseDelayMs: number;
  /** No wait is longer than this, whether from backoff or from the server's `Retry-After`. */
  readonly maxDelayMs: number;
  /** A number in [0, 1); `Math.random` outside tests. */
  readonly random: () => number;
}

/**
 * Milliseconds to wait after failed attempt `attempt` (0-based): the server's `Retry-After` when it sent
 * one, else exponential backoff with jitter, both capped at `maxDelayMs`.
 */
export function retryDelayMs(
  attempt: number,
  retryAfterMs: number | undefined,
  options: RetryDelayOptions,
): number {
  if (retryAfterMs !== undefined) return Math.min(retryAfterMs, options.maxDelayMs);
  const step = Math.min(options.baseDelayMs * 2 ** attempt, options.maxDelayMs);
  // "Equal jitter": half fixed, half random, so clients that failed together spread out but never hammer.
  return Math.round(step / 2 + (step / 2) * options.random());
}

/**
 * Reads how long the server asked us to wait, from `retry-after-ms` (OpenAI's extension) or `Retry-After`
 * (RFC 9110 10.2.3: delay-seconds or an HTTP date); `undefined` when absent or unreadable.
 */
export function parseRetryAfter(headers: Headers, now: number = Date.now()): number | undefined {
  const milliseconds = headers.get('retry-after-ms')?.trim();
  if (milliseconds !== undefined && /^\d+(?:\.\d+)?$/.test(milliseconds)) return Number(milliseconds);
  const value = headers.get('retry-after')?.trim();
  if (value === undefined || value === '') return undefined;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  // Only a real date: Date.parse also accepts bare numbers such as "-1", which RFC 9110 does not allow.
  if (!/[a-z]/i.test(value)) return undefined;
  const date = Date.parse(value);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}
