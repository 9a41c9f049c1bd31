export { ingestDocument, runIngest, IngestFailedError } from './ingest-document.js';
export type {
  BlockOutcome,
  OmittedBlocks,
  IngestOptions,
  IngestResult,
  IngestProblem,
  IngestedContent,
} from './ingest-document.js';
export { openIngestRoots } from './ingest-roots.js';
export type { IngestRoots, IngestRootsOptions, SharedIngestRoots } from './ingest-roots.js';
export {
  ingestManifestSchema,
  manifestArtifactSchema,
  ingestModeSchema,
  sourceKindSchema,
} from './ingest-manifest.js';
export type { IngestManifest, ManifestArtifact, IngestMode, SourceKind } from './ingest-manifest.js';
export { REASON_CODES, statusOfReason } from './reason-code.js';
export { WARNING_CODES } from './block-warning.js';
export type { BlockWarning, WarningCode } from './block-warning.js';
export type { ReasonCode, ArtifactStatus, IngestPolicyCode } from './reason-code.js';
export { planBlocks } from './plan-blocks.js';
export type { BlockPlan } from './plan-blocks.js';
export { deriveNodeId, defaultCliRunId } from './derive-node-id.js';
export { INGEST_ENV_VAR, resolveIngestEnabled } from './resolve-ingest-enabled.js';
export type { IngestEnabled, IngestEnabledInput, IngestEnabledSource } from './resolve-ingest-enabled.js';
export { manifestJsonSchema } from './manifest-json-schema.js';
export { listBlockOutcomes } from './list-block-outcomes.js';
export type { BlockListing, ListedBlock } from './list-block-outcomes.js';
export { ingestWrittenDocument } from './ingest-written-document.js';
export type {
  DocumentIngestSummary,
  WrittenDocumentIngest,
  WrittenDocumentIngestOptions,
} from './ingest-written-document.js';
export { concludeDocument } from './conclude-document.js';
export type {
  ConcludeDocumentOptions,
  ConcludeIngest,
  ConcludedDocument,
  DocumentRecords,
} from './conclude-document.js';
export { IsolatedFenceParser, parseFencesIsolated } from './isolated-parse/index.js';
export type { IsolatedFenceParserOptions, IsolatedParseOptions } from './isolated-parse/index.js';
export { DeadlineWorker, serveDeadlineWorker, workerEntryBeside } from './deadline-worker/index.js';
export type {
  DeadlineOutcome,
  DeadlineWorkerAnswer,
  DeadlineWorkerOptions,
  DeadlineWorkerRequest,
} from './deadline-worker/index.js';
export { readIngestManifest } from './read-ingest-manifest.js';
export type { ManifestRead } from './read-ingest-manifest.js';
export { createIngestStream } from './create-ingest-stream.js';
export {
  ObjectPrestore,
  objectWriterThread,
  ObjectWriterThread,
  PRESTORE_PENDING_BYTES,
  PRESTORE_START_BYTES,
  PRESTORE_START_FILES,
} from './object-prestore/index.js';
export type {
  BlockPlacer,
  ObjectWriter,
  ObjectWriterThreadOptions,
  PlaceAnswer,
  PlaceRequest,
} from './object-prestore/index.js';
export type {
  IngestStreamEvent,
  IngestStreamInternals,
  IngestStreamOptions,
  StreamedBlockEventType,
} from './create-ingest-stream.js';
