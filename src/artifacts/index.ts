export {
  artifactIdOf,
  artifactIdSchema,
  artifactMetadataSchema,
  artifactRecordSchema,
  artifactSourceSchema,
  artifactTypeSchema,
  contentHashSchema,
} from './artifact-record.js';
export type {
  ArtifactIdInput,
  ArtifactMetadata,
  ArtifactRecord,
  ArtifactSource,
  ArtifactType,
} from './artifact-record.js';
export { contentHashOf } from './content-hash.js';
export { OBJECTS_DIR, openObjectStore } from './object-store.js';
export type { ObjectStore, ObjectStoreOptions, ObjectVerdict, PutResult } from './object-store.js';
export { ObjectStoreError } from './object-store-error.js';
export type { ObjectStoreErrorCode } from './object-store-error.js';
export { countLineChanges } from './count-line-changes.js';
export type { LineChanges } from './count-line-changes.js';
export { appendArtifactRecords, artifactRecordsPath, readArtifactRecords } from './append-records.js';
export type { ArtifactRecordsRead, RecordLineProblem, RecordLineProblemCode } from './record-lines.js';
export {
  INDEX_DIR,
  indexFileOf,
  latestPathVersion,
  readPathVersions,
  rebuildArtifactIndex,
} from './artifact-index.js';
export type { IndexRebuild } from './artifact-index.js';
export { listRecordedRuns } from './list-recorded-runs.js';
export { classifyPath } from './classify-path.js';
export type { PathClass } from './classify-path.js';
export { traceContentSchema, tracePathOf } from './trace-content.js';
export type { TraceContent } from './trace-content.js';
export { openArtifactRecorder, versionsOfIngested } from './record-artifacts.js';
export type {
  ArtifactRecorder,
  ArtifactRecorderOptions,
  ArtifactVersionInput,
  PlacedFile,
  TraceInput,
} from './record-artifacts.js';
export { readProjectRecords } from './read-project-records.js';
export type { ProjectRecords } from './read-project-records.js';
export { artifactRecordJsonSchema, traceContentJsonSchema } from './artifact-json-schemas.js';
export { LineageError } from './lineage-error.js';
export type { LineageErrorCode } from './lineage-error.js';
export { resolveRecordPath, RECORD_TOP_FOLDERS } from './resolve-record-path.js';
export { logPath } from './log-path.js';
export type { PathLog, PathVersion } from './log-path.js';
export { verifyArtifacts } from './verify-artifacts.js';
export type { VerifyOptions, VerifyProblem, VerifyProblemCode, VerifyReport } from './verify-artifacts.js';
export { readRunTimeline } from './read-run-timeline.js';
export type {
  RunTimeline,
  TimelineStep,
  TimelineProblem,
  UnreadableTrace,
  UnreadableTraceReason,
} from './read-run-timeline.js';
export { replayRun } from './replay-run.js';
export type {
  ReplayOptions,
  RunReplay,
  ReplayStep,
  ReplayArtifact,
  ReplayProblem,
  PriorVersion,
  UnknownPrevious,
} from './replay-run.js';
export type { ReplayDiff, UnavailableDiffReason } from './diff-versions.js';
export { checkoutWorkspace } from './checkout-workspace.js';
export type { CheckoutOptions, Checkout, CheckoutCut, CheckedOutFile } from './checkout-workspace.js';
export { BundleError } from './bundle-error.js';
export type { BundleErrorCode } from './bundle-error.js';
export { BUNDLE_MANIFEST_PATH, bundleManifestSchema } from './bundle-manifest.js';
export type { BundleFile, BundleManifest } from './bundle-manifest.js';
export { bundleRun } from './bundle-run.js';
export type { BundleOptions, BundleSummary } from './bundle-run.js';
export { importBundle } from './import-bundle.js';
export type { ImportOptions, ImportSummary } from './import-bundle.js';
