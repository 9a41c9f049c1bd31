export { checkDeclaredPath, findSecretInPath, MAX_COMPONENT_BYTES, MAX_PATH_BYTES } from './paths/index.js';
export { pathCollisionKey } from './paths/index.js';
export { openConfinedRoot } from './confined-root.js';
export type { ConfinedRoot, ConfinedRootOptions, Confinement, WriteBatch } from './confined-root-types.js';
export type { ConfinedFolder, ConfinedReadOptions, FolderEntry, FolderOpening } from './confined-folder.js';
export type { FileOpening, ReadRefusal, ReadRefusalCode } from './read-outcome.js';
export type { UnsyncedDirectory } from './walk/index.js';
export type { ConfinedWriteOptions, WriteStep } from './confined-write-options.js';
export type { StreamedWriteOptions } from './write/index.js';
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
export type { AppendOptions } from './write/index.js';
export type { PublishOptions, PublishOutcome, StagingFolder } from './confined-root-types.js';
export { SpooledFile, writeFileAtomically } from './write/index.js';
export type { AtomicFileOptions, AtomicFileOutcome } from './write/index.js';
export { errnoOf } from './errno-of.js';
export { TEMP_FILE_PATTERN, tempFileWriter } from './temp-file-name.js';
export { createLockFile, isProcessAlive, releaseLockIfOurs, removeStaleLock } from './locks/index.js';
export { acquireShortLock, lockFileSlot, readLiveShortLockOwner } from './locks/index.js';
export type { LockSlot, ShortLock, ShortLockAttempt, ShortLockOwner } from './locks/index.js';
export { lstatOrMissing } from './lstat-or-missing.js';
export { watchFolder } from './watch-folder.js';
export { withScratchFolder } from './scratch-folder.js';
export type { ScratchFolder } from './scratch-folder.js';
export type { FolderWatch } from './watch-folder.js';
export { inspectDirectoryChain } from './inspect-directory-chain.js';
export type { DirectoryChainProblem } from './inspect-directory-chain.js';
export * as quickFs from './quick-fs.js';
export type { QuickHandle } from './quick-fs.js';
export { NONBLOCKING_NOFOLLOW_READ, NONBLOCKING_READ, readRegularFile } from './read-regular-file.js';
export { openUserFile, readUserFileHead } from './user-file.js';
export type { UserFileHead, UserFileOpening, UserFileRefusal } from './user-file.js';
export { isOpenedAt } from './is-opened-at.js';
export { fillFreshFolder, makeFreshMarkedFolder } from './fresh-folder.js';
export type { FolderMarker } from './fresh-folder.js';
/** The open file a writer fills ({@link writeFileAtomically}) or a reader streams ({@link openUserFile}). */
export type { FileHandle } from 'node:fs/promises';
export type { ReadRegularFileOptions } from './read-regular-file.js';
export { findStaleTempFiles, inspectFileBelow, judgeCopyTarget } from './inspect/index.js';
export type { CopyTargetVerdict, FileBelow, FoundTempFile } from './inspect/index.js';
