import { redactSecrets } from '../events/index.js';
import type { EventLog } from '../events/index.js';
import type { IngestLimits } from '../config/index.js';
import type { FenceParser } from '../project/index.js';
import type { ProjectRef } from '../store/index.js';
import { describeError } from '../project/index.js';
import type { NodeId, RunId } from '../project/index.js';
import { runIngest } from './ingest-document.js';
import type { IngestedContent } from './apply-plans.js';
import type { BlockOutcome } from './block-outcome.js';
import type { IngestMode, SourceKind } from './ingest-manifest.js';
import type { IngestRoots } from './ingest-roots.js';

/** The ingest of one document as a graph node or a workflow step carries it (snake_case, as in state.json). */
export interface DocumentIngestSummary {
  readonly total_blocks: number;
  readonly written: number;
  readonly skipped: number;
  readonly rejected: number;
  /** Project-relative manifest path, or '' when no manifest was written. */
  readonly manifest_path: string;
  /** Problem codes of the ingest (fail-open: they never fail the node or step). */
  readonly problems: readonly string[];
  /** Blocks not written for an I/O error (ENOSPC, EROFS, EACCES), counted in `skipped` too; absent: none. */
  readonly io_errors?: number;
  /** The first I/O error's message, naming its errno; absent when the ingest met none. */
  readonly io_error?: string;
}

/** One just-written document to hand to the ingest. */
export interface WrittenDocumentIngestOptions {
  /** A project folder, or a `Project` whose store keeps the manifest and the events. */
  readonly projectDir: ProjectRef;
  readonly runId: RunId;
  readonly nodeId: NodeId;
  /** Project-relative path of the document. */
  readonly docPath: string;
  /** The document's bytes as they were just written: the ingest judges these and does not read the file. */
  readonly content: Uint8Array;
  /** The same document decoded, as the caller holds it: the ingest parses it instead of decoding `content` again. */
  readonly text?: string;
  /** Roots shared by every document of the run; their opener closes them. */
  readonly roots?: IngestRoots;
  readonly sourceKind: SourceKind;
  readonly mode: IngestMode;
  /** The run's event log; ingest events land in the run's events.jsonl. */
  readonly events: EventLog;
  readonly limits?: Partial<IngestLimits>;
  /** The block parser (`ingest.parser`); by default the scanner. */
  readonly parser?: FenceParser;
  readonly durability?: 'fsync' | 'none';
  /** Records the files the ingest placed, under the workspace lock (see `IngestOptions.onPlaced`). */
  readonly onPlaced?: (contents: readonly IngestedContent[]) => Promise<void>;
}

/** The summary of one written document's ingest, the bytes it placed, for the records, and every block's outcome. */
export interface WrittenDocumentIngest {
  readonly summary: DocumentIngestSummary;
  /** One entry per block now on disk (`written`, or `skipped` as `unchanged`); empty when the ingest threw. */
  readonly contents: readonly IngestedContent[];
  /** Every manifest entry's outcome, in document order (at most `max_blocks + 1`); empty when the ingest threw. */
  readonly blocks: readonly BlockOutcome[];
}

/**
 * The post-write ingest of one document (spec runtime.md, workflow-mcp.md). Fail-open (spec ingest.md
 * section 6): it never throws; even a throw from the ingest becomes an `ingest.error` event and a summary
 * carrying `internal_error`.
 */
export async function ingestWrittenDocument(
  options: WrittenDocumentIngestOptions,
): Promise<WrittenDocumentIngest> {
  try {
    const result = await runIngest({
      projectDir: options.projectDir,
      docPath: options.docPath,
      runId: options.runId,
      nodeId: options.nodeId,
      content: options.content,
      ...(options.text === undefined ? {} : { text: options.text }),
      ...(options.roots === undefined ? {} : { roots: options.roots }),
      sourceKind: options.sourceKind,
      mode: options.mode,
      events: options.events,
      ...(options.limits === undefined ? {} : { limits: options.limits }),
      ...(options.parser === undefined ? {} : { parser: options.parser }),
      ...(options.durability === undefined ? {} : { durability: options.durability }),
      ...(options.onPlaced === undefined ? {} : { onPlaced: options.onPlaced }),
    });
    const { summary } = result.manifest;
    const ioErrors = result.blocks.filter((block) => block.code === 'io_error').length;
    const firstIoError = result.problems.find((problem) => problem.code === 'io_error')?.message;
    return {
      summary: {
        total_blocks: summary.total_blocks,
        written: summary.written,
        skipped: summary.skipped,
        rejected: summary.rejected,
        manifest_path: result.manifestPath ?? '',
        problems: [...new Set(result.problems.map((problem) => problem.code))],
        ...(ioErrors === 0 ? {} : { io_errors: ioErrors }),
        ...(firstIoError === undefined ? {} : { io_error: firstIoError }),
      },
      contents: result.contents,
      blocks: result.blocks,
    };
  } catch (error) {
    reportIngestError(options, error);
    return {
      summary: {
        total_blocks: 0,
        written: 0,
        skipped: 0,
        rejected: 0,
        manifest_path: '',
        problems: ['internal_error'],
      },
      contents: [],
      blocks: [],
    };
  }
}

function reportIngestError(options: WrittenDocumentIngestOptions, error: unknown): void {
  const message = redactSecrets(`ingest of ${options.docPath} threw: ${describeError(error)}`);
  try {
    options.events.write('ERROR', 'ingest.error', {
      node_id: options.nodeId,
      doc_path: options.docPath,
      code: 'internal_error',
      message,
    });
  } catch {
    // A closed or broken event log must not fail the node either (fail-open).
    process.stderr.write(`artifact-ingest: ${message}\n`);
  }
}
