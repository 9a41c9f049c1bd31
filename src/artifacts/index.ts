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
export type { ObjectStore, ObjectVerdict, PutResult } from './object-store.js';
export { ObjectStoreError } from './object-store-error.js';
export type { ObjectStoreErrorCode } from './object-store-error.js';
export { countLineChanges } from './count-line-changes.js';
export type { LineChanges } from './count-line-changes.js';
export { appendArtifactRecords, artifactRecordsPath, readArtifactRecords } from './append-records.js';
export type { ArtifactRecordsRead, RecordLineProblem, RecordLineProblemCode } from './append-records.js';
