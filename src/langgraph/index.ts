// artifact-ingest/langgraph: the LangGraph.js adapter (docs/integrations.md, "LangGraph.js"). Nothing in the main
// entry imports it, so only its users load @langchain/langgraph (an optional peer dependency).
export { ingestNode, IngestNodeError } from './ingest-node.js';
export type { IngestNode, IngestNodeErrorCode, IngestNodeOptions, IngestNodeUpdate } from './ingest-node.js';
export { IngestAnnotation } from './ingest-annotation.js';
export { ingestNodeSummarySchema } from './ingest-node-summary.js';
export type {
  IngestNodeFile,
  IngestNodeStatus,
  IngestNodeSummary,
  NothingToIngestReason,
} from './ingest-node-summary.js';
