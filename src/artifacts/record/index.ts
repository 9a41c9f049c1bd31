export { classifyPath } from './classify-path.js';
export type { PathClass } from './classify-path.js';
export { countLineChanges, MAX_DIFF_EDIT_LENGTH } from './count-line-changes.js';
export type { LineChanges, LineCountMethod, LineCountOptions } from './count-line-changes.js';
export { openArtifactRecorder, versionsOfIngested } from './record-artifacts.js';
export type {
  ArtifactRecorder,
  ArtifactRecorderOptions,
  ArtifactVersionInput,
  PlacedFile,
  TraceInput,
} from './record-artifacts.js';
export { openIngestRecords } from './ingest-records.js';
export { recordFailureEvents } from './record-failure-events.js';
export type {
  RecordFailureEvents,
  RecordFailureEventsOptions,
  RunOfFailures,
} from './record-failure-events.js';
export type {
  IngestRecords,
  IngestRecordsOptions,
  RecordedDocument,
  RecordFailure,
} from './ingest-records.js';
