export { ObjectStoreError, openObjectStore } from '../../store/index.js';
export type {
  ObjectStore,
  ObjectStoreErrorCode,
  ObjectStoreOptions,
  ObjectVerdict,
  PutResult,
} from '../../store/index.js';
export { parseRecordLines, readRecordLines, renderRecordLines } from './record-lines.js';
export type { ArtifactRecordsRead, RecordLineProblem, RecordLineProblemCode } from './record-lines.js';
export { appendArtifactRecords, readArtifactRecords } from './append-records.js';
export {
  appendToIndex,
  indexFileOf,
  isVersionRecord,
  latestPathVersion,
  listIndexFiles,
  readPathVersions,
  readPathVersionsById,
  rebuildArtifactIndex,
} from './artifact-index.js';
export { sortByTime } from './sort-by-time.js';
export type { IndexRebuild } from './artifact-index.js';
export { hasRunFolder, listRecordedRuns } from '../../store/index.js';
export { readLinkedVersions, readProjectRecords, readVersionsById } from './read-project-records.js';
export type { ProjectRecords } from './read-project-records.js';
export { newestVersionLine, openPathVersionCache } from './path-version-cache.js';
export type { NewestVersionLine, PathVersionCache } from './path-version-cache.js';
export { openRecordRoots } from './record-roots.js';
export type { RecordRoots } from './record-roots.js';
export { appendToRunIndexes } from './append-to-run-indexes.js';
export { isWorkspaceVersion, readHistoryMeta, supersedes } from './history-journal.js';
export { readHistoryCut, readWholeHistory } from './read-history.js';
export type { HistoryCut } from './read-history.js';
export { newestIndexedRun, readRunStarts } from './run-order-index.js';
