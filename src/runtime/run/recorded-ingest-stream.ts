import { createIngestStream as streamOnly } from '../../ingest/index.js';
import type { IngestStreamEvent, IngestStreamOptions } from '../../ingest/index.js';
import { parseNodeId, parseRunId } from '../../project/index.js';
import { recordLibraryIngest } from './recorded-ingest.js';

/**
 * The library's streaming ingest: the ingest stream of one document, the files it placed recorded as artifact
 * versions of the run when the document ends, as `ingestDocument` records them (fail-open); a caller that passes
 * `onPlaced` records itself.
 */
export function createIngestStream(options: IngestStreamOptions): TransformStream<string, IngestStreamEvent> {
  if (options.onPlaced !== undefined) return streamOnly(options);
  // Misuse is refused when the stream is made, with the ingest's own errors.
  const ids = { runId: parseRunId(options.runId, 'runId'), nodeId: parseNodeId(options.nodeId, 'nodeId') };
  // Records are opened at the end, under the workspace lock: the stream holds nothing open.
  return streamOnly(
    { ...options, onPlaced: (placed) => recordLibraryIngest(options, ids, placed) },
    { recordsInProjectStore: true },
  );
}
