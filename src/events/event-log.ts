import type { EventLevel } from './event-level.js';

/**
 * Fields of one event: reasons, paths, counts, digests, errors.
 * Block contents never belong here, so the keys `content` and `contents` are refused by type and at run time.
 */
export type EventFields = Readonly<Record<string, unknown>> & {
  readonly content?: never;
  readonly contents?: never;
};

/** One event of a {@link EventLog.writeAll} batch. */
export interface EventEntry {
  readonly level: EventLevel;
  readonly event: string;
  readonly fields?: EventFields;
}

/** An append-only sink of events, one JSON object per line; see docs/events.md for the line format. */
export interface EventLog {
  /** Appends one event; strings in `fields` are redacted before anything is written. */
  write(level: EventLevel, event: string, fields?: EventFields): void;
  /**
   * Appends several events as `write` would, all in one write(2) of whole lines: a document's block events cost
   * one append, and a line cut off by a crash still only loses that line.
   */
  writeAll(entries: readonly EventEntry[]): void;
  /** Returns a log that adds `bindings` (such as run_id, node_id, doc_path) to every event it writes. */
  child(bindings: EventFields): EventLog;
  /** Flushes and closes the shared file; afterwards `write` throws, on this log and on its parent and children. */
  close(): Promise<void>;
}
