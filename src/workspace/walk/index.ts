export { COMPONENT_ATTEMPTS } from './directory-handle.js';
export type {
  DirectoryHandle,
  DirectoryWalk,
  RootAnchor,
  WalkOptions,
  WalkResult,
} from './directory-handle.js';
export { entryKind } from './entry-kind.js';
export type { EntryKind } from './entry-kind.js';
export { shareDirectories } from './shared-directories.js';
export type { SharedDirectories, UnsyncedDirectory } from './shared-directories.js';
export { descriptorPath, walkByDescriptor } from './walk-by-descriptor.js';
export { walkByLstat } from './walk-by-lstat.js';
