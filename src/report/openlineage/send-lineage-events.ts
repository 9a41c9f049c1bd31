import type { RetryDelayOptions } from '../../runtime/index.js';
import { postWithRetries } from '../http/index.js';
import type { PostErrorCode } from '../http/index.js';
import type { RunEvent } from './run-event-schema.js';

/** Why an event was not accepted: a status we do not retry (or still failing at the last attempt), or no answer. */
export type LineageSendErrorCode = PostErrorCode;

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

/**
 * POSTs each event as JSON to the endpoint, in order, retrying network errors, timeouts, 429 and 5xx with
 * capped exponential backoff (or the server's Retry-After); stops at the first event not accepted.
 */
export async function sendLineageEvents(
  events: readonly RunEvent[],
  options: SendLineageOptions,
): Promise<LineageSendResult> {
  const total = events.length;
  // The key is removed by value from every message, whatever its shape (a server may echo it back).
  const secrets = options.apiKey === undefined ? [] : [options.apiKey];
  const headers: Record<string, string> =
    options.apiKey === undefined ? {} : { authorization: `Bearer ${options.apiKey}` };
  for (const [index, event] of events.entries()) {
    const outcome = await postWithRetries(JSON.stringify(event), {
      endpoint: options.endpoint,
      headers,
      secrets,
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      ...(options.attempts === undefined ? {} : { attempts: options.attempts }),
      ...(options.delay === undefined ? {} : { delay: options.delay }),
      onRetry: (retry) =>
        options.onProgress?.({
          kind: 'retry',
          index,
          total,
          attempt: retry.attempt,
          reason: retry.reason,
          delayMs: retry.delayMs,
        }),
    });
    if (outcome.ok) {
      options.onProgress?.({ kind: 'accepted', index, total, status: outcome.status });
      continue;
    }
    const tried = outcome.attempts > 1 ? ` after ${outcome.attempts} attempts` : '';
    return {
      accepted: index,
      total,
      failure: {
        code: outcome.code,
        index,
        attempts: outcome.attempts,
        status: outcome.status,
        message: `event ${index + 1} of ${total} (${event.job.name} ${event.eventType}) was not accepted${tried}: ${outcome.message}`,
      },
    };
  }
  return { accepted: total, total, failure: null };
}
