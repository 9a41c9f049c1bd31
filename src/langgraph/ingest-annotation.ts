import { Annotation } from '@langchain/langgraph';
import type { IngestNodeSummary } from './ingest-node-summary.js';

/**
 * The state key `ingest` that {@link ingestNode} writes, as an `Annotation.Root`: spread its `spec` beside the
 * messages, `Annotation.Root({ ...MessagesAnnotation.spec, ...IngestAnnotation.spec })`. Each run of the node
 * replaces the value (a last-value channel), so the state holds the latest answer's summary.
 */
export const IngestAnnotation = Annotation.Root({
  ingest: Annotation<IngestNodeSummary | undefined>(),
});
