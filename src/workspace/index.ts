export { checkDeclaredPath, findSecretInPath, MAX_COMPONENT_BYTES, MAX_PATH_BYTES } from './path-rules.js';
export { pathCollisionKey } from './path-collision-key.js';
export { openConfinedRoot } from './confined-root.js';
export type { ConfinedRoot, ConfinedRootOptions, Confinement, WriteBatch } from './confined-root-types.js';
export type { ConfinedFolder, ConfinedReadOptions, FolderEntry, FolderOpening } from './confined-folder.js';
export type { FileOpening, ReadRefusal, ReadRefusalCode } from './read-outcome.js';
export type { UnsyncedDirectory } from './shared-directories.js';
export type { ConfinedWriteOptions, WriteStep } from './confined-write-options.js';
export type { StreamedWriteOptions } from './stream-file-atomically.js';
export { WorkspaceError } from './workspace-error.js';
export type {
  AppendOutcome,
  FilesystemRefusalCode,
  PathRuleCode,
  PathVerdict,
  StreamedWriteOutcome,
  WriteOutcome,
  WriteRefusal,
} from './write-outcome.js';
export type { AppendOptions } from './append-lines.js';
export type { PublishOptions, PublishOutcome, StagingFolder } from './confined-root-types.js';
export { writeFileAtomically } from './write-file-atomically.js';
export type { AtomicFileOptions, AtomicFileOutcome } from './write-file-atomically.js';
export { errnoOf } from './errno-of.js';
export { TEMP_FILE_PATTERN, tempFileWriter } from './temp-file-name.js';
export { createLockFile, isProcessAlive, releaseLockIfOurs, removeStaleLock } from './lock-file.js';
export { acquireShortLock, lockFileSlot, readLiveShortLockOwner } from './short-lock.js';
export type { LockSlot, ShortLock, ShortLockAttempt, ShortLockOwner } from './short-lock.js';
export { lstatOrMissing } from './lstat-or-missing.js';
export { inspectDirectoryChain } from './inspect-directory-chain.js';
export type { DirectoryChainProblem } from './inspect-directory-chain.js';
export * as quickFs from './quick-fs.js';
export type { QuickHandle } from './quick-fs.js';
export { NONBLOCKING_READ, readRegularFile } from './read-regular-file.js';
export type { ReadRegularFileOptions } from './read-regular-file.js';
export { findStaleTempFiles, inspectFileBelow, judgeCopyTarget } from './inspect/index.js';
export type { CopyTargetVerdict, FileBelow, FoundTempFile } from './inspect/index.js';
