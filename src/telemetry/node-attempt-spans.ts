import { startNodeSpan } from './live-spans.js';
import type { LiveContext, LiveSpan, NodeSpanInput, SpanEnd } from './live-spans.js';

/** The spans of one node's attempts, one after the other: a contract's fix re-ask is a new attempt, a new span. */
export interface NodeAttemptSpans {
  /** Runs `work` in the current attempt's span, so its agent call and ingest are children of that attempt. */
  within<T>(work: () => Promise<T>): Promise<T>;
  /** Ends the current attempt's span and starts the next attempt's. */
  next(ended: SpanEnd, attempt: number): void;
  /** Ends the current attempt's span (later ends are ignored). */
  end(ended: SpanEnd): void;
  /** Ends the current attempt's span as failed with a thrown error's message (redacted). */
  fail(error: unknown): void;
}

/** Starts the first attempt's span of a node under `parent` (the run's context, passed explicitly). */
export function startNodeAttemptSpans(parent: LiveContext, node: NodeSpanInput): NodeAttemptSpans {
  let current: LiveSpan = startNodeSpan(parent, node);
  return {
    within: (work) => current.within(work),
    next: (ended, attempt) => {
      current.end(ended);
      current = startNodeSpan(parent, { ...node, attempt });
    },
    end: (ended) => {
      current.end(ended);
    },
    fail: (error) => {
      current.fail(error);
    },
  };
}
