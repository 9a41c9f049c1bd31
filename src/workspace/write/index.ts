export { appendLinesBelow } from './append-lines.js';
export type { AppendOptions } from './append-lines.js';
export { inspectTarget } from './inspect-target.js';
export type { ContentDigest, TargetState } from './inspect-target.js';
export { isInPlace, renameIntoPlace, replaceFileAtomically } from './replace-file-atomically.js';
export type { Replacement } from './replace-file-atomically.js';
export { streamFileAtomically } from './stream-file-atomically.js';
export type { StreamedReplacement, StreamedWriteOptions } from './stream-file-atomically.js';
export { writeFileAtomically } from './write-file-atomically.js';
export type { AtomicFileOptions, AtomicFileOutcome } from './write-file-atomically.js';
export {
  FILE_MODE,
  READ_ONLY_MODE,
  removeOwnFile,
  streamTempFile,
  writeTempFile,
} from './write-temp-file.js';
export type { FileIdentity, StreamedTempFile, TempFile } from './write-temp-file.js';
export { SpooledFile } from './spooled-file.js';
