import { redactSecrets } from '../project/index.js';
import { ATTR, FILE_EVENT, ingestSpanName } from './span-tree.js';
import { otel, startSpan } from './live-spans.js';
import type { LiveSpan } from './live-spans.js';

/** One file an ingest judged, as its {@link FILE_EVENT} span event carries it. */
export interface IngestedFileEvent {
  /** `workspace/<path>`, or the declared `file=` value when the path itself was refused. */
  readonly path: string;
  readonly sha256: string;
  readonly bytes: number;
  /** `written`, `unchanged`, `skipped` or `rejected`. */
  readonly status: string;
  /** The reason code, when the file was not simply written. */
  readonly reason?: string;
}

/** How one ingest ended: the manifest's counts, its files, and its first problem (an ERROR status) if any. */
export interface IngestSpanEnd {
  readonly found: number;
  readonly written: number;
  readonly skipped: number;
  readonly rejected: number;
  /** Built only when the span records (see {@link IngestSpan.recording}). */
  readonly files: () => readonly IngestedFileEvent[];
  /** The first problem's `code: message` (already redacted by the ingest), or undefined. */
  readonly problem?: string;
}

/** The live span of one ingest. */
export interface IngestSpan {
  readonly recording: boolean;
  /** Ends the span with its counts and one {@link FILE_EVENT} per file. */
  end(ended: IngestSpanEnd): void;
  fail(error: unknown): void;
}

/** Where an ingest happens: its document, run and node. */
export interface IngestSpanInput {
  readonly document: string;
  readonly runId: string;
  readonly nodeId: string;
}

/** The span of one document's ingest, a child of the active span (a node attempt's, a step pass's, or none). */
export function startIngestSpan(ingest: IngestSpanInput): IngestSpan {
  // A document whose path holds a credential is refused by the ingest, and never named in a span either.
  const document = redactSecrets(ingest.document);
  const span: LiveSpan = startSpan(
    ingestSpanName(document),
    { [ATTR.document]: document, [ATTR.runId]: ingest.runId, [ATTR.nodeId]: ingest.nodeId },
    otel().context.active(),
  );
  return {
    recording: span.recording,
    end: (ended) => {
      if (span.recording) {
        span.set({
          [ATTR.blocksFound]: ended.found,
          [ATTR.blocksWritten]: ended.written,
          [ATTR.blocksSkipped]: ended.skipped,
          [ATTR.blocksRejected]: ended.rejected,
        });
        for (const file of ended.files()) span.event(FILE_EVENT, fileEventAttributes(file));
      }
      span.end(
        ended.problem === undefined ? { status: 'completed' } : { status: 'failed', error: ended.problem },
      );
    },
    fail: (error) => {
      span.fail(error);
    },
  };
}

function fileEventAttributes(file: IngestedFileEvent): Record<string, string | number | undefined> {
  return {
    [ATTR.path]: redactSecrets(file.path),
    [ATTR.sha256]: file.sha256,
    [ATTR.bytes]: file.bytes,
    [ATTR.fileStatus]: file.status,
    [ATTR.reason]: file.reason,
  };
}
