export { contentHashOf, hexOfContentHash, objectPathOf } from './content-hash.js';
export { openObjectStore, readOnlyObjects } from './object-store.js';
export type { ObjectStore, ObjectStoreOptions, ObjectVerdict, PutResult } from './object-store.js';
export { ObjectStoreError } from './object-store-error.js';
export type { ObjectStoreErrorCode } from './object-store-error.js';
export type {
  LineAppender,
  ProjectStore,
  StoreEntry,
  StoreKind,
  StoreReadOptions,
  StoreWriteOptions,
  FolderCreation,
  FolderDraft,
  FolderFill,
  StoredFileInfo,
  StoredFileReader,
  StoredTail,
} from './project-store.js';
export { StoreError } from './store-error.js';
export type { StoreErrorCode } from './store-error.js';
export { checkKeyBelow, checkReadRange, storeKeyComponents } from './store-key.js';
export { bytesToRead } from './bytes-to-read.js';
export { objectsAtKeys } from './keyed-objects.js';
export { openProjectStore } from './files-store.js';
export { createMemoryStore } from './memory-store.js';
export { isProject, openProject, projectDirOf, projectOf, usingProject } from './project.js';
export { storeLockSlot } from './store-lock-slot.js';
export type { OpenProjectOptions, Project, ProjectRef } from './project.js';
export { hasRunFolder, listRecordedRuns } from './run-folders.js';
