import { redactLiteralSecrets } from '../../project/index.js';
import { parseRetryAfter, retryDelayMs } from '../../runtime/index.js';
import type { RetryDelayOptions } from '../../runtime/index.js';
import type { RunEvent } from './run-event-schema.js';

/** Why an event was not accepted: a status we do not retry (or still failing at the last attempt), or no answer. */
export type LineageSendErrorCode = 'http_status' | 'network' | 'timeout';

/** The event the server did not accept, and why. */
export interface LineageSendFailure {
  readonly code: LineageSendErrorCode;
  /** 0-based index of the event in the list given. */
  readonly index: number;
  readonly attempts: number;
  /** The HTTP status of the last answer, for `http_status`. */
  readonly status: number | null;
  readonly message: string;
}

/** How many events the server accepted, and the one it did not (sending stops there). */
export interface LineageSendResult {
  readonly accepted: number;
  readonly total: number;
  readonly failure: LineageSendFailure | null;
}

/** One step of the sending, for a progress display. */
export type LineageSendProgress =
  | { readonly kind: 'accepted'; readonly index: number; readonly total: number; readonly status: number }
  | {
      readonly kind: 'retry';
      readonly index: number;
      readonly total: number;
      readonly attempt: number;
      readonly reason: string;
      readonly delayMs: number;
    };

/** Where and how to send: the endpoint (see lineageEndpoint), an API key, the timeout and the retry policy. */
export interface SendLineageOptions {
  readonly endpoint: URL;
  /**
   * Sent as `Authorization: Bearer <key>`; never part of a message: removed by value from every message and
   * progress reason, whatever its shape, when it has at least MIN_LITERAL_SECRET_LENGTH characters (a server may
   * echo it back).
   */
  readonly apiKey?: string;
  /** Per request, the answer's body included (default 10 s). */
  readonly timeoutMs?: number;
  /** Attempts per event, the first included (default 5). */
  readonly attempts?: number;
  /** Backoff between attempts (default 500 ms doubling, at most 10 s, equal jitter). */
  readonly delay?: RetryDelayOptions;
  readonly onProgress?: (progress: LineageSendProgress) => void;
}

type Attempt =
  | { readonly kind: 'accepted'; readonly status: number }
  | {
      readonly kind: 'fail';
      readonly code: LineageSendErrorCode;
      readonly status: number | null;
      readonly message: string;
    }
  | {
      readonly kind: 'retry';
      readonly code: LineageSendErrorCode;
      readonly status: number | null;
      readonly message: string;
      readonly retryAfterMs?: number;
    };

const DEFAULT_DELAY: RetryDelayOptions = { baseDelayMs: 500, maxDelayMs: 10_000, random: Math.random };
/** Enough of an error answer for its first line. */
const MAX_ERROR_BODY_BYTES = 4096;

/**
 * POSTs each event as JSON to the endpoint, in order, retrying network errors, timeouts, 429 and 5xx with
 * capped exponential backoff (or the server's Retry-After); stops at the first event not accepted.
 */
export async function sendLineageEvents(
  events: readonly RunEvent[],
  options: SendLineageOptions,
): Promise<LineageSendResult> {
  const attempts = Math.max(1, options.attempts ?? 5);
  const delay = options.delay ?? DEFAULT_DELAY;
  const total = events.length;
  for (const [index, event] of events.entries()) {
    const body = JSON.stringify(event);
    for (let attempt = 1; ; attempt++) {
      const outcome = await postOnce(body, options);
      if (outcome.kind === 'accepted') {
        options.onProgress?.({ kind: 'accepted', index, total, status: outcome.status });
        break;
      }
      if (outcome.kind === 'fail' || attempt >= attempts) {
        const tried = attempt > 1 ? ` after ${attempt} attempts` : '';
        return {
          accepted: index,
          total,
          failure: {
            code: outcome.code,
            index,
            attempts: attempt,
            status: outcome.status,
            message: `event ${index + 1} of ${total} (${event.job.name} ${event.eventType}) was not accepted${tried}: ${outcome.message}`,
          },
        };
      }
      const delayMs = retryDelayMs(attempt - 1, outcome.retryAfterMs, delay);
      options.onProgress?.({ kind: 'retry', index, total, attempt, reason: outcome.message, delayMs });
      await new Promise((resolve) => setTimeout(resolve, delayMs));
    }
  }
  return { accepted: total, total, failure: null };
}

/** One POST; every message it returns has the key removed by value, whatever its shape. */
async function postOnce(body: string, options: SendLineageOptions): Promise<Attempt> {
  // An answer (its body, a Location, an error naming the header) may echo the key in a shape no credential
  // pattern knows: it is removed by value, before any cut.
  const secrets = options.apiKey === undefined ? [] : [options.apiKey];
  const attempt = await postUnredacted(body, options, secrets);
  return attempt.kind === 'accepted'
    ? attempt
    : { ...attempt, message: redactLiteralSecrets(attempt.message, secrets) };
}

async function postUnredacted(
  body: string,
  options: SendLineageOptions,
  secrets: readonly string[],
): Promise<Attempt> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  if (options.apiKey !== undefined) headers['authorization'] = `Bearer ${options.apiKey}`;
  const signal = AbortSignal.timeout(options.timeoutMs ?? 10_000);
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

function noAnswer(error: unknown, options: SendLineageOptions): Attempt {
  if (error instanceof DOMException && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
    return {
      kind: 'retry',
      code: 'timeout',
      status: null,
      message: `no answer within ${options.timeoutMs ?? 10_000} ms`,
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
