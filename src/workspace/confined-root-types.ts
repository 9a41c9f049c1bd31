import type { AppendOptions, StreamedWriteOptions } from './write/index.js';
import type { ConfinedReadOptions, FolderOpening } from './confined-folder.js';
import type { ConfinedWriteOptions } from './confined-write-options.js';
import type { FileOpening } from './read-outcome.js';
import type { UnsyncedDirectory } from './walk/index.js';
import type { AppendOutcome, StreamedWriteOutcome, WriteOutcome, WriteRefusal } from './write-outcome.js';

// The confined root's and its staging folders' types, apart from both implementations: each opens the other.

/** How the writer stays inside the root: `proc-fd` (Linux, descriptor-relative) or the `lstat-walk` fallback. */
export type Confinement = 'proc-fd' | 'lstat-walk';

/** How a root is opened. */
export interface ConfinedRootOptions {
  /** Create the root directory (and its parents) when missing. */
  readonly create?: boolean;
  /** Force a confinement strategy; by default `proc-fd` wherever /proc/self/fd works, else `lstat-walk`. */
  readonly confinement?: Confinement;
}

/** A workspace directory that files can be written into, and only into. */
export interface ConfinedRoot {
  /** The root resolved once when opened; a symlinked root is trusted as the anchor, nothing below it is. */
  readonly realPath: string;
  /** The strategy this root uses to stay confined. */
  readonly confinement: Confinement;
  /** Checks `declaredPath` and, if it passes every rule, writes `bytes` there atomically; any string is safe. */
  write(declaredPath: string, bytes: Uint8Array, options?: ConfinedWriteOptions): Promise<WriteOutcome>;
  /**
   * Like `write`, with the bytes streamed from `chunks` (memory holds one chunk) and, when `expectedSha256` is
   * given, renamed into place only if they hash to it; a refused path leaves `chunks` unread.
   */
  writeStream(
    declaredPath: string,
    chunks: AsyncIterable<Uint8Array>,
    options?: StreamedWriteOptions,
  ): Promise<StreamedWriteOutcome>;
  /** Appends whole lines to the file at `declaredPath` in one O_APPEND write; a symlink on the way is refused. */
  appendLines(declaredPath: string, text: string, options?: AppendOptions): Promise<AppendOutcome>;
  /** Creates the folder at `declaredPath` and its parents, each a real folder (a symlink on the way is refused). */
  makeDirectory(declaredPath: string): Promise<WriteOutcome>;
  /**
   * Opens the regular file at `relativePath` (a plain `/`-separated path below the root, no `.` or `..`) for
   * reading, walking as the writer does: no symlink is followed anywhere on the way, and a FIFO, device, folder
   * or (unless allowed) hard-linked file is refused. The caller reads the handle and closes it.
   */
  openFile(relativePath: string, options?: ConfinedReadOptions): Promise<FileOpening>;
  /** Opens the folder at `relativePath` (as `openFile` walks) to look up and open many of its entries by name. */
  openFolder(relativePath: string, options?: ConfinedReadOptions): Promise<FolderOpening>;
  /** Starts a batch of writes that share opened directories and sync each directory once, in `finish`. */
  writeBatch(): WriteBatch;
  /**
   * Removes the writer's leftover temp files from the folder at `declaredPath` without writing there, as a write
   * into it would first (never through a symlink; only those whose writer is gone, or last modified before
   * `staleTempBefore`, default an hour ago); returns how many. A missing or refused folder holds none.
   */
  sweepTempFiles(declaredPath: string, options?: { readonly staleTempBefore?: number }): Promise<number>;
  /** Opens a fresh staging folder beside `targetDirectory`, to fill and then publish with renames. */
  stage(targetDirectory: string): Promise<StagingFolder | WriteRefusal>;
  /** Waits for writes in flight, then releases the root's descriptor. */
  close(): Promise<void>;
}

/**
 * Writes of many files through one root: each `write` is checked and placed as `ConfinedRoot.write` does, but a
 * directory is walked once per batch and, under fsync durability, synced once by `finish` instead of once per file.
 */
export interface WriteBatch {
  write(declaredPath: string, bytes: Uint8Array, options?: ConfinedWriteOptions): Promise<WriteOutcome>;
  /**
   * Syncs every directory a durable write renamed into, then releases the directories; until it returns, those
   * renames may not be on disk. Returns the directories whose sync failed (empty when all are durable).
   */
  finish(): Promise<readonly UnsyncedDirectory[]>;
}

/** What publishing a staging folder did: the target is in place, or why it is not. */
export type PublishOutcome =
  | { readonly status: 'published'; readonly path: string; readonly files: number; readonly removed: number }
  | { readonly status: 'exists'; readonly path: string }
  | WriteRefusal;

/** How a staging folder is published. */
export interface PublishOptions {
  /**
   * `folder` (default): rename the whole staging folder to the target, which must not exist, so readers see no
   * folder or the whole one. `files`: rename each staged file over its counterpart in the target (readers of one
   * file see its old or new content, never none) and remove the target's other regular files.
   */
  readonly mode?: 'folder' | 'files';
  /** `fsync` (default) flushes the renamed entries' directories. */
  readonly durability?: 'fsync' | 'none';
}

/** A folder filled beside its target and then renamed into place; until then nobody sees its files. */
export interface StagingFolder {
  /** Where the staged files are written: a confined root of its own, with every guarantee of `write`. */
  readonly files: ConfinedRoot;
  /** Puts the staged files into place (see {@link PublishOptions}) once every staged write has settled, then removes the staging folder. */
  publish(options?: PublishOptions): Promise<PublishOutcome>;
  /** Removes the staging folder and everything in it; safe to call after `publish` or twice. */
  discard(): Promise<void>;
}
