export { artifactIdOf, artifactRecordSchema } from './artifact-record.js';
export type { ArtifactIdInput, ArtifactRecord, ArtifactSource, ArtifactType } from './artifact-record.js';
export { contentHashOf } from '../store/index.js';
export { traceContentSchema, tracePathOf } from './trace-content.js';
export type { TraceContent } from './trace-content.js';
export { artifactRecordJsonSchema, traceContentJsonSchema } from './artifact-json-schemas.js';
export {
  hasRunFolder,
  listRecordedRuns,
  ObjectStoreError,
  openObjectStore,
  readArtifactRecords,
  readPathVersions,
  readProjectRecords,
  readLinkedVersions,
  readVersionsById,
  rebuildArtifactIndex,
} from './store/index.js';
export type {
  ArtifactRecordsRead,
  IndexRebuild,
  ObjectStore,
  ObjectStoreErrorCode,
  ObjectStoreOptions,
  ProjectRecords,
  RecordLineProblem,
  RecordLineProblemCode,
} from './store/index.js';
export {
  classifyPath,
  countLineChanges,
  openArtifactRecorder,
  openIngestRecords,
  recordFailureEvents,
  versionsOfIngested,
} from './record/index.js';
export type {
  ArtifactRecorder,
  ArtifactRecorderOptions,
  ArtifactVersionInput,
  IngestRecords,
  IngestRecordsOptions,
  LineChanges,
  LineCountMethod,
  LineCountOptions,
  PathClass,
  RecordedDocument,
  RecordFailure,
  RecordFailureEvents,
  RecordFailureEventsOptions,
  RunOfFailures,
  TraceInput,
} from './record/index.js';
export {
  checkoutWorkspace,
  LineageError,
  logPath,
  openVersionDiffer,
  readCheckoutFiles,
  readRunTimeline,
  replayRun,
  verifyArtifacts,
} from './lineage/index.js';
export type {
  Checkout,
  CheckoutContents,
  CheckoutCut,
  CheckoutOptions,
  LineageErrorCode,
  PathLog,
  PathVersion,
  ReplayArtifact,
  ReplayDiff,
  ReplayOptions,
  ReplayStep,
  RunReplay,
  RunTimeline,
  TimelineStep,
  VerifyOptions,
  VerifyProblem,
  VerifyProblemCode,
  VerifyReport,
  VersionDiffer,
  VersionToDiff,
} from './lineage/index.js';
export { BundleError, bundleRun, copyRun, importBundle, RunCopyError } from './bundle/index.js';
export type {
  BundleErrorCode,
  BundleOptions,
  CopyRunOptions,
  RunCopy,
  RunCopyErrorCode,
  BundleSummary,
  ImportOptions,
  ImportSummary,
} from './bundle/index.js';
