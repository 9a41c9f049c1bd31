// What stands in a project's folders, read without following a link and without writing: the writer's stale temp
// files, the state of a recorded workspace file, a folder a copy may be written into.
export { findStaleTempFiles } from './find-stale-temp-files.js';
export type { FoundTempFile } from './find-stale-temp-files.js';
export { inspectFileBelow } from './inspect-file-below.js';
export type { FileBelow } from './inspect-file-below.js';
export { judgeCopyTarget } from './judge-copy-target.js';
export type { CopyTargetVerdict } from './judge-copy-target.js';
