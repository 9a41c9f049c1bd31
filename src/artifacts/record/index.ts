export { classifyPath } from './classify-path.js';
export type { PathClass } from './classify-path.js';
export { countLineChanges } from './count-line-changes.js';
export type { LineChanges } from './count-line-changes.js';
export { openArtifactRecorder, versionsOfIngested } from './record-artifacts.js';
export type {
  ArtifactRecorder,
  ArtifactRecorderOptions,
  ArtifactVersionInput,
  PlacedFile,
  TraceInput,
} from './record-artifacts.js';
export { openIngestRecords } from './ingest-records.js';
export type {
  IngestRecords,
  IngestRecordsOptions,
  RecordedDocument,
  RecordFailure,
} from './ingest-records.js';
