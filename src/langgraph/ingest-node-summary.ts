import { z } from 'zod';
import type { BlockOutcome, DocumentIngestSummary } from '../ingest/index.js';

/** How the ingest node ended: the answer ingested, nothing to ingest, or the document not saved. */
export type IngestNodeStatus = 'ingested' | 'nothing_to_ingest' | 'failed';

/** Why there was nothing to ingest: no AI message in the state, or one with no text (only tool calls). */
export type NothingToIngestReason = 'no_ai_message' | 'no_text';

/** One manifest entry as the node's summary shows it: the file, its status (`unchanged` apart), its reason code. */
export interface IngestNodeFile {
  /** `workspace/<path>`, or the `file=` value as written when the path itself was refused. */
  readonly path: string;
  readonly status: 'written' | 'unchanged' | 'skipped' | 'rejected';
  /** The reason code (`path_traversal`, `unterminated`, ...); absent when written or unchanged. */
  readonly reason?: string;
}

/**
 * What `ingestNode` returns under the state key `ingest`: the manifest's summary and path (snake_case, as the
 * runtime's state.json keeps it), the document and ids it was ingested as, and each file's outcome.
 */
export interface IngestNodeSummary {
  readonly status: IngestNodeStatus;
  /** Present when `status` is `nothing_to_ingest`. */
  readonly reason?: NothingToIngestReason;
  readonly run_id: string;
  readonly node_id: string;
  /** Project-relative path where the answer was saved, byte for byte. */
  readonly doc_path: string;
  readonly total_blocks: number;
  readonly written: number;
  /** Counted in `skipped` too: files already holding exactly these bytes (a re-run of the same answer). */
  readonly unchanged: number;
  readonly skipped: number;
  readonly rejected: number;
  /** Project-relative manifest path, or '' when no manifest was written. */
  readonly manifest_path: string;
  readonly files: readonly IngestNodeFile[];
  /** Problem codes (fail-open: they never fail the node): the ingest's, or `output_refused`/`output_write_failed`. */
  readonly problems: readonly string[];
  /** The first problem as `code: message`, saying what to fix; absent when there was none. */
  readonly problem?: string;
}

const count = z.number().int().nonnegative();

/**
 * The zod schema of {@link IngestNodeSummary}: a `StateSchema` field (`ingest: ingestNodeSummarySchema.optional()`)
 * for graphs that declare their state with schemas instead of `Annotation`.
 */
export const ingestNodeSummarySchema: z.ZodType<IngestNodeSummary> = z
  .object({
    status: z.enum(['ingested', 'nothing_to_ingest', 'failed']),
    reason: z.enum(['no_ai_message', 'no_text']).exactOptional(),
    run_id: z.string(),
    node_id: z.string(),
    doc_path: z.string(),
    total_blocks: count,
    written: count,
    unchanged: count,
    skipped: count,
    rejected: count,
    manifest_path: z.string(),
    files: z
      .array(
        z.object({
          path: z.string(),
          status: z.enum(['written', 'unchanged', 'skipped', 'rejected']),
          reason: z.string().exactOptional(),
        }),
      )
      .readonly(),
    problems: z.array(z.string()).readonly(),
    problem: z.string().exactOptional(),
  })
  .readonly();

/** The ids and document a summary is about. */
export interface SummaryIds {
  readonly runId: string;
  readonly nodeId: string;
  readonly docPath: string;
}

/** The summary of an answer that was saved and ingested (fail-open: its problems are listed, never thrown). */
export function ingestedSummary(
  ids: SummaryIds,
  ingest: DocumentIngestSummary,
  blocks: readonly BlockOutcome[],
  firstProblem: string | undefined,
): IngestNodeSummary {
  const files = blocks.map(fileOf);
  return {
    status: 'ingested',
    ...idsOf(ids),
    total_blocks: ingest.total_blocks,
    written: ingest.written,
    unchanged: files.filter((file) => file.status === 'unchanged').length,
    skipped: ingest.skipped,
    rejected: ingest.rejected,
    manifest_path: ingest.manifest_path,
    files,
    problems: ingest.problems,
    ...(firstProblem === undefined ? {} : { problem: firstProblem }),
  };
}

/** The summary when the state held no text to ingest: nothing was saved or written. */
export function nothingToIngestSummary(ids: SummaryIds, reason: NothingToIngestReason): IngestNodeSummary {
  return { status: 'nothing_to_ingest', reason, ...idsOf(ids), ...NOTHING };
}

/** The summary when the answer could not be saved (or the ingest could not start): `code` and what to fix. */
export function failedSummary(ids: SummaryIds, code: string, message: string): IngestNodeSummary {
  return {
    status: 'failed',
    ...idsOf(ids),
    ...NOTHING,
    problems: [code],
    problem: `${code}: ${message}`,
  };
}

const NOTHING = {
  total_blocks: 0,
  written: 0,
  unchanged: 0,
  skipped: 0,
  rejected: 0,
  manifest_path: '',
  files: [],
  problems: [],
} as const;

function idsOf(ids: SummaryIds): Pick<IngestNodeSummary, 'run_id' | 'node_id' | 'doc_path'> {
  return { run_id: ids.runId, node_id: ids.nodeId, doc_path: ids.docPath };
}

function fileOf(block: BlockOutcome): IngestNodeFile {
  const path = block.workspacePath === '' ? block.declaredFile : block.workspacePath;
  if (block.code === 'unchanged') return { path, status: 'unchanged' };
  return block.code === null
    ? { path, status: block.status }
    : { path, status: block.status, reason: block.code };
}
