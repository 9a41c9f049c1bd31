import { openIngestRecords, recordFailureEvents } from '../../artifacts/index.js';
import { createIngestStream as streamOnly } from '../../ingest/index.js';
import type { IngestStreamEvent, IngestStreamOptions } from '../../ingest/index.js';
import { parseNodeId, parseRunId } from '../../project/index.js';

/** The agent id of the records a library ingest makes, as `ingestDocument`'s. */
const LIBRARY_AGENT_ID = 'library';

/**
 * The library's streaming ingest: the ingest stream of one document, the files it placed recorded as artifact
 * versions of the run when the document ends, as `ingestDocument` records them (fail-open); a caller that passes
 * `onPlaced` records itself.
 */
export function createIngestStream(options: IngestStreamOptions): TransformStream<string, IngestStreamEvent> {
  if (options.onPlaced !== undefined) return streamOnly(options);
  const runId = parseRunId(options.runId, 'runId');
  const nodeId = parseNodeId(options.nodeId, 'nodeId');
  return streamOnly({
    ...options,
    onPlaced: async (placed) => {
      // Opened at the end, under the workspace lock, as the post-write ingest records: the stream holds nothing open.
      const failures = recordFailureEvents({ project: options.projectDir, runId });
      const records = openIngestRecords({
        projectDir: options.projectDir,
        runId,
        durability: options.durability ?? 'fsync',
        ...(options.now === undefined ? {} : { now: options.now }),
        onFailure: failures.report,
      });
      try {
        await records.recordIngested(nodeId, LIBRARY_AGENT_ID, placed, options.docPath);
      } finally {
        await records.close();
        await failures.close();
      }
    },
  });
}
