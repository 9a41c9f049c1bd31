import type { ProjectRef } from '../../store/index.js';
import type { EventLog } from '../../events/index.js';
import { ingestWrittenDocument } from '../../ingest/index.js';
import type { IngestLimits } from '../../config/index.js';
import type { IngestedContent, IngestMode, IngestRoots } from '../../ingest/index.js';
import type { NodeId, RunId } from '../../project/index.js';
import type { NodeIngestSummary } from '../../runs/index.js';

/** One written node document to hand to the ingest. */
export interface IngestHookOptions {
  readonly projectDir: ProjectRef;
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
  /** One entry per block now on disk (`written`, or `skipped` as `unchanged`); empty when the ingest threw. */
  readonly contents: readonly IngestedContent[];
}

/**
 * The post-write hook (spec runtime.md): ingests one node document with `source.kind = graph_runtime` through
 * the ingest's one fail-open {@link ingestWrittenDocument}; it never throws.
 */
export async function runIngestHook(options: IngestHookOptions): Promise<IngestHookResult> {
  return ingestWrittenDocument({ ...options, sourceKind: 'graph_runtime' });
}
