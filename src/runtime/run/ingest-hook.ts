import { redactSecrets } from '../../events/index.js';
import type { EventLog } from '../../events/index.js';
import { runIngest } from '../../ingest/index.js';
import type { IngestLimits } from '../../config/index.js';
import type { IngestedContent, IngestMode, IngestRoots } from '../../ingest/index.js';
import { describeError } from '../../project/index.js';
import type { NodeId, RunId } from '../../project/index.js';
import type { NodeIngestSummary } from './run-types.js';

/** One written node document to hand to the ingest. */
export interface IngestHookOptions {
  readonly projectDir: string;
  readonly runId: RunId;
  readonly nodeId: NodeId;
  /** Project-relative path of the node's document. */
  readonly docPath: string;
  /** The document's bytes as the runtime just wrote them: the ingest judges these and does not read the file. */
  readonly content: Uint8Array;
  /** The run's roots, opened once for all its nodes; the run closes them. */
  readonly roots?: IngestRoots;
  readonly mode: IngestMode;
  /** The run's event log; ingest events land in the run's events.jsonl. */
  readonly events: EventLog;
  readonly limits?: Partial<IngestLimits>;
  readonly durability?: 'fsync' | 'none';
}

/** What the hook returns: the summary a node carries, and the bytes the ingest placed, for the records. */
export interface IngestHookResult {
  readonly summary: NodeIngestSummary;
  /** One entry per block now on disk (`written` or `unchanged`); empty when the ingest threw. */
  readonly contents: readonly IngestedContent[];
}

/**
 * The post-write hook (spec runtime.md): ingests one node document with `source.kind = graph_runtime` and
 * returns its summary and contents. Fail-open (spec ingest.md section 6): it never throws; even a throw from
 * the ingest becomes an `ingest.error` event and a summary carrying `internal_error`.
 */
export async function runIngestHook(options: IngestHookOptions): Promise<IngestHookResult> {
  try {
    const result = await runIngest({
      projectDir: options.projectDir,
      docPath: options.docPath,
      runId: options.runId,
      nodeId: options.nodeId,
      content: options.content,
      ...(options.roots === undefined ? {} : { roots: options.roots }),
      sourceKind: 'graph_runtime',
      mode: options.mode,
      events: options.events,
      ...(options.limits === undefined ? {} : { limits: options.limits }),
      ...(options.durability === undefined ? {} : { durability: options.durability }),
    });
    const { summary } = result.manifest;
    return {
      summary: {
        total_blocks: summary.total_blocks,
        written: summary.written,
        skipped: summary.skipped,
        rejected: summary.rejected,
        manifest_path: result.manifestPath ?? '',
        problems: [...new Set(result.problems.map((problem) => problem.code))],
      },
      contents: result.contents,
    };
  } catch (error) {
    reportHookError(options, error);
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
    };
  }
}

function reportHookError(options: IngestHookOptions, error: unknown): void {
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
