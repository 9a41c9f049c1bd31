import { createIngestStream as streamOnly } from '../../ingest/index.js';
import type { BlockPlacer, IngestStreamEvent, IngestStreamOptions } from '../../ingest/index.js';
import { parseNodeId, parseRunId } from '../../project/index.js';
import { recordLibraryIngest } from './recorded-ingest.js';

/**
 * The library's streaming ingest: the ingest stream of one document, the files it placed recorded as artifact
 * versions of the run when the document ends, as `ingestDocument` records them (fail-open); a caller that passes
 * `onPlaced` records itself.
 */
export function createIngestStream(options: IngestStreamOptions): TransformStream<string, IngestStreamEvent> {
  return recordedIngestStream(options, {});
}

/** What the library's adapters ask of {@link recordedIngestStream} beyond the stream's options. */
export interface RecordedStreamInternals {
  /**
   * Each chunk's write settles once the blocks it closed are on disk, even when a thread places them (the AI SDK
   * adapter passes a text part on only then).
   */
  readonly settleEachChunk?: boolean;
  /** What places blocks off the calling thread; null for none (the benchmark's baseline). */
  readonly placer?: BlockPlacer | null;
}

/** {@link createIngestStream}, with what an adapter asks of it. */
export function recordedIngestStream(
  options: IngestStreamOptions,
  internal: RecordedStreamInternals,
): TransformStream<string, IngestStreamEvent> {
  const passed = {
    settleEachChunk: internal.settleEachChunk === true,
    ...(internal.placer === undefined ? {} : { placer: internal.placer }),
  };
  if (options.onPlaced !== undefined) return streamOnly(options, passed);
  // Misuse is refused when the stream is made, with the ingest's own errors.
  const ids = { runId: parseRunId(options.runId, 'runId'), nodeId: parseNodeId(options.nodeId, 'nodeId') };
  // Records are opened at the end, under the workspace lock: the stream holds nothing open.
  return streamOnly(
    { ...options, onPlaced: (placed) => recordLibraryIngest(options, ids, placed) },
    { recordsInProjectStore: true, ...passed },
  );
}
