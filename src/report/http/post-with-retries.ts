import { redactLiteralSecrets } from '../../project/index.js';
import { parseRetryAfter, retryDelayMs } from '../../runtime/index.js';
import type { RetryDelayOptions } from '../../runtime/index.js';

/** Why a body was not accepted: a status we do not retry (or still failing at the last attempt), or no answer. */
export type PostErrorCode = 'http_status' | 'network' | 'timeout';

/** How one body's POST ended: accepted (with the status), or not, and why. */
export type PostOutcome =
  | { readonly ok: true; readonly status: number; readonly attempts: number }
  | {
      readonly ok: false;
      readonly code: PostErrorCode;
      readonly attempts: number;
      /** The HTTP status of the last answer, for `http_status`. */
      readonly status: number | null;
      /** What went wrong at the last attempt, with every secret removed. */
      readonly message: string;
    };

/** One retry about to wait, for a progress display. */
export interface PostRetry {
  /** The attempt that failed, 1-based. */
  readonly attempt: number;
  readonly reason: string;
  readonly delayMs: number;
}

/** Where and how to POST: the endpoint, the headers, the secrets to keep out of messages, timeout and retries. */
export interface PostOptions {
  readonly endpoint: URL;
  /** Sent with every attempt, beside `content-type` and `accept` (an `authorization`, say). */
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * Removed by value from every message, whatever their shape, when at least MIN_LITERAL_SECRET_LENGTH long (a
   * server may echo a key back): the values of secret headers.
   */
  readonly secrets?: readonly string[];
  /** The body's media type (default `application/json`). */
  readonly contentType?: string;
  /** Per request, the answer's body included (default 10 s). */
  readonly timeoutMs?: number;
  /** Attempts, the first included (default 5). */
  readonly attempts?: number;
  /** Backoff between attempts (default 500 ms doubling, at most 10 s, equal jitter). */
  readonly delay?: RetryDelayOptions;
  readonly onRetry?: (retry: PostRetry) => void;
}

type Attempt =
  | { readonly kind: 'accepted'; readonly status: number }
  | {
      readonly kind: 'fail';
      readonly code: PostErrorCode;
      readonly status: number | null;
      readonly message: string;
    }
  | {
      readonly kind: 'retry';
      readonly code: PostErrorCode;
      readonly status: number | null;
      readonly message: string;
      readonly retryAfterMs?: number;
    };

const DEFAULT_DELAY: RetryDelayOptions = { baseDelayMs: 500, maxDelayMs: 10_000, random: Math.random };
const DEFAULT_TIMEOUT_MS = 10_000;
/** Enough of an error answer for its first line. */
const MAX_ERROR_BODY_BYTES = 4096;

/**
 * POSTs one body to the endpoint, retrying network errors, timeouts, 429 and 5xx with capped exponential backoff
 * (or the server's Retry-After); another status (a 4xx, a redirect) is a refusal, not retried. Shared by
 * `export openlineage --url` and `export otlp`, so both retry and refuse alike.
 */
export async function postWithRetries(body: string, options: PostOptions): Promise<PostOutcome> {
  const attempts = Math.max(1, options.attempts ?? 5);
  const delay = options.delay ?? DEFAULT_DELAY;
  for (let attempt = 1; ; attempt++) {
    const outcome = await postOnce(body, options);
    if (outcome.kind === 'accepted') return { ok: true, status: outcome.status, attempts: attempt };
    if (outcome.kind === 'fail' || attempt >= attempts) {
      return {
        ok: false,
        code: outcome.code,
        attempts: attempt,
        status: outcome.status,
        message: outcome.message,
      };
    }
    const delayMs = retryDelayMs(attempt - 1, outcome.retryAfterMs, delay);
    options.onRetry?.({ attempt, reason: outcome.message, delayMs });
    await new Promise((resolve) => setTimeout(resolve, delayMs));
  }
}

/** One POST; every message it returns has the secrets removed by value, whatever their shape. */
async function postOnce(body: string, options: PostOptions): Promise<Attempt> {
  // An answer (its body, a Location, an error naming the header) may echo a key in a shape no credential
  // pattern knows: it is removed by value, before any cut.
  const secrets = options.secrets ?? [];
  const attempt = await postUnredacted(body, options, secrets);
  return attempt.kind === 'accepted'
    ? attempt
    : { ...attempt, message: redactLiteralSecrets(attempt.message, secrets) };
}

async function postUnredacted(
  body: string,
  options: PostOptions,
  secrets: readonly string[],
): Promise<Attempt> {
  const headers: Record<string, string> = {
    ...options.headers,
    'content-type': options.contentType ?? 'application/json',
    accept: 'application/json',
  };
  const signal = AbortSignal.timeout(options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  let response: Response;
  try {
    // manual: a redirect would turn the POST into a GET or carry the key to another host.
    response = await fetch(options.endpoint, { method: 'POST', headers, body, signal, redirect: 'manual' });
  } catch (error) {
    return noAnswer(error, options);
  }
  const { status } = response;
  if (status >= 200 && status < 300) {
    await response.body?.cancel().catch(() => undefined);
    return { kind: 'accepted', status };
  }
  let firstLine: string;
  try {
    firstLine = await firstLineOf(response, secrets);
  } catch (error) {
    return noAnswer(error, options);
  }
  const statusText = `HTTP ${status}${response.statusText === '' ? '' : ` ${response.statusText}`}`;
  const message = firstLine === '' ? statusText : `${statusText}: ${firstLine}`;
  if (status === 429 || status >= 500) {
    const retryAfterMs = parseRetryAfter(response.headers);
    return {
      kind: 'retry',
      code: 'http_status',
      status,
      message,
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    };
  }
  if (status >= 300 && status < 400) {
    const location = response.headers.get('location');
    const to = location === null ? '' : ` to ${location}`;
    return {
      kind: 'fail',
      code: 'http_status',
      status,
      message: `${statusText} (a redirect${to}): give the final address as the URL`,
    };
  }
  return { kind: 'fail', code: 'http_status', status, message };
}

function noAnswer(error: unknown, options: PostOptions): Attempt {
  if (error instanceof DOMException && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
    return {
      kind: 'retry',
      code: 'timeout',
      status: null,
      message: `no answer within ${options.timeoutMs ?? DEFAULT_TIMEOUT_MS} ms`,
    };
  }
  // fetch's TypeError('fetch failed') hides the reason (ECONNREFUSED, ENOTFOUND, ...) in its cause.
  const cause =
    error instanceof Error ? (error.cause as { code?: unknown; message?: unknown } | undefined) : undefined;
  const reason =
    typeof cause?.code === 'string'
      ? cause.code
      : typeof cause?.message === 'string'
        ? cause.message
        : error instanceof Error
          ? error.message
          : String(error);
  return {
    kind: 'retry',
    code: 'network',
    status: null,
    message: `cannot reach ${options.endpoint.origin} (${reason})`,
  };
}

/**
 * The first non-empty line of an answer's body, read no further than {@link MAX_ERROR_BODY_BYTES}, with the
 * `secrets` removed before either cut: one that straddles a cut is not left half-printed.
 */
async function firstLineOf(response: Response, secrets: readonly string[]): Promise<string> {
  if (response.body === null) return '';
  const reader: ReadableStreamDefaultReader<Uint8Array> = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let cutAtEnd = true;
  while (size < MAX_ERROR_BODY_BYTES) {
    const { done, value } = await reader.read();
    if (done) {
      cutAtEnd = false;
      break;
    }
    chunks.push(value);
    size += value.byteLength;
  }
  await reader.cancel().catch(() => undefined);
  const read = Buffer.concat(chunks);
  const cut = cutAtEnd || read.byteLength > MAX_ERROR_BODY_BYTES;
  const text = redactLiteralSecrets(read.subarray(0, MAX_ERROR_BODY_BYTES).toString('utf8'), secrets, {
    cutAtEnd: cut,
  });
  const line = text.split(/\r?\n/).find((candidate) => candidate.trim() !== '') ?? '';
  return line.trim().slice(0, 300);
}
