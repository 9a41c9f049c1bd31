import type { ObjectStore, ObjectStoreOptions } from './object-store.js';

/** The implementations of the storage port: today's `.agent/` folder, a process's memory, or the remote (PostgreSQL + objects). */
export type StoreKind = 'files' | 'memory' | 'remote';

/** How a write into the store is made durable. */
export interface StoreWriteOptions {
  /** `fsync` (default): on disk before the call resolves (the files store). `none`: for generated data. */
  readonly durability?: 'fsync' | 'none';
}

/** How a read from the store is bounded. */
export interface StoreReadOptions {
  /** Refuse (`too_large`) rather than read more than this many bytes. */
  readonly maxBytes?: number;
}

/** One entry of a store folder. */
export interface StoreEntry {
  readonly name: string;
  /** `other`: something the store neither reads nor writes (a symlink, a FIFO planted in `.agent/`). */
  readonly kind: 'file' | 'folder' | 'other';
}

/** What the store knows of one stored file without reading it. */
export interface StoredFileInfo {
  readonly size: number;
  /** When it was last written, epoch milliseconds. */
  readonly modifiedMs: number;
}

/** What {@link ProjectStore.readFrom} found: part of a stored file, and which file it is. */
export interface StoredTail {
  /** The bytes from the offset asked to the end of the file, or to the length asked (empty past the end). */
  readonly bytes: Uint8Array;
  /** The file's whole size when it was read. */
  readonly size: number;
  /**
   * Which file this is among those stored under the key over time: kept by appends, changed when the key is
   * replaced, so a reader that kept an offset knows whether the offset still applies.
   */
  readonly version: string;
}

/** Writes the new files of a folder aside, for {@link ProjectStore.replaceFolder}. */
export interface FolderFill {
  /** Writes `content` under `key` (a key below the folder being replaced); nobody reads it before the fill ends. */
  write(key: string, content: Uint8Array | string): Promise<void>;
}

/** Writes the files of a new folder aside, for {@link ProjectStore.createFolder}. */
export interface FolderDraft extends FolderFill {
  /**
   * Writes the bytes streamed from `chunks` under `key` (a key below the folder), memory holding one chunk; false,
   * keeping nothing under `key`, when they do not hash to `expectedSha256` (64 lowercase hex digits).
   */
  writeStream(key: string, chunks: AsyncIterable<Uint8Array>, expectedSha256: string): Promise<boolean>;
  /** Makes the folder `key` below the folder, kept even when empty where the store keeps empty folders. */
  makeFolder(key: string): Promise<void>;
}

/** What {@link ProjectStore.createFolder} did: the folder is in place with what the fill wrote, or was there already. */
export type FolderCreation<T> =
  { readonly status: 'created'; readonly filled: T } | { readonly status: 'exists' };

/** Appends lines to one stored file as they come, each call landing whole and at once (no await in between). */
export interface LineAppender {
  /**
   * Appends `lines` (whole lines) in one write, after every earlier write; a file left ending inside a line by
   * an interrupted writer gets a newline first. Throws the I/O error of a failed write.
   */
  write(lines: string): void;
  /** Makes every write so far durable (fdatasync on the files store). */
  sync(): Promise<void>;
  /** Releases the file. */
  close(): Promise<void>;
}

/**
 * A stored file opened for reading from any position: a log read line by line, or from its end back, without
 * holding it whole. Reads see the file as it was when opened: bytes appended since are not read.
 */
export interface StoredFileReader {
  /** Its size in bytes when it was opened; no read goes past it. */
  readonly size: number;
  /** Up to `length` bytes from `position`: fewer at the end, none at or past `size`. */
  read(position: number, length: number): Promise<Uint8Array>;
  /** Releases the file. */
  close(): Promise<void>;
}

/**
 * The storage port: everything the product keeps about runs (spec storage.md, Part 1), addressed by the
 * project-relative keys of `src/project/project-layout.ts` (`.agent/runs/<run_id>/state.json`), plus the
 * content-addressed objects. The files implementation keeps today's `.agent/` layout byte for byte; the memory
 * implementation keeps the same keys in a process. The workspace (`workspace/`) is not in the store: the agents'
 * files stay a real folder written by the confined writer.
 *
 * Keys name files; a folder exists while a file below it does. A replace is atomic (a reader sees the old or the
 * new content, never a mix), an append of whole lines lands in one piece after every earlier append, and a read
 * returns undefined for a missing key and throws {@link StoreError} for what is not a regular file.
 */
export interface ProjectStore {
  /** Which implementation this is. */
  readonly kind: StoreKind;
  /** What messages name for the store: the project's `.agent` folder, or `memory`. */
  readonly location: string;
  /** The bytes stored under `key`, or undefined when nothing is. */
  read(key: string, options?: StoreReadOptions): Promise<Uint8Array | undefined>;
  /** The UTF-8 text stored under `key`, or undefined when nothing is. */
  readText(key: string, options?: StoreReadOptions): Promise<string | undefined>;
  /** Size and time of the file under `key`, or undefined when nothing is. */
  info(key: string): Promise<StoredFileInfo | undefined>;
  /** The entries directly below the folder `folder`, sorted by name; empty when the folder does not exist. */
  list(folder: string): Promise<StoreEntry[]>;
  /** Stores `content` under `key` in place of what was there, atomically. */
  replace(key: string, content: Uint8Array | string, options?: StoreWriteOptions): Promise<void>;
  /** Appends `lines` (whole lines, each ending in a newline) to the file under `key`, creating it when missing. */
  append(key: string, lines: string, options?: StoreWriteOptions): Promise<void>;
  /** Removes the file under `key`; false when nothing was there. */
  remove(key: string): Promise<boolean>;
  /**
   * Creates `key` holding `content` unless something is stored there (a lock: the run lock, the short locks);
   * false when something is.
   */
  createExclusive(key: string, content: string, options?: StoreWriteOptions): Promise<boolean>;
  /** Removes `key` if it still holds exactly `content` (a lock that is ours); never throws. */
  removeIfHolds(key: string, content: string): Promise<void>;
  /**
   * Removes `key` only if it still holds `staleContent` (a stale lock judged by its content), so that a fresh
   * lock made in between is kept; true when the stale one was removed.
   */
  removeStale(key: string, staleContent: string): Promise<boolean>;
  /**
   * Opens the file under `key` for reading in parts (a large log), or returns undefined when nothing is stored
   * there; throws {@link StoreError} `not_a_file` as `read` does. The caller closes it.
   */
  openReader(key: string): Promise<StoredFileReader | undefined>;
  /**
   * Part of the file under `key`: its bytes from offset `from` on, at most `length` of them (all by default), with
   * its size and version (a reader of a growing file reads only what was appended since it last read); undefined
   * when nothing is stored there.
   */
  readFrom(key: string, from: number, length?: number): Promise<StoredTail | undefined>;
  /**
   * Replaces the files below the folder `folder` (an index folder) with those `fill` writes: written aside first,
   * so a throw or a crash before `fill` resolves changes nothing, then each put in place of its counterpart (a
   * reader of one file sees the old or the new one, never none) and the folder's other files removed, durably.
   * Returns what `fill` returns. Whoever else writes below `folder` meanwhile may lose those writes.
   */
  replaceFolder<T>(folder: string, fill: (files: FolderFill) => Promise<T>): Promise<T>;
  /**
   * Creates the folder `folder` (a run folder brought by an import) holding what `fill` writes: written aside, so a
   * throw or a crash before `fill` resolves changes nothing, then put in place in one step, so a reader sees no
   * folder or the whole folder (the files store writes aside into a folder beside it whose name, starting with '.',
   * is no key). When something is already stored at `folder` nothing changes and the answer is
   * `exists`. Throws {@link StoreError} `write_refused` (with `folder` as its key) when the folder cannot be made
   * there (a symlink or a file in the way).
   */
  createFolder<T>(folder: string, fill: (draft: FolderDraft) => Promise<T>): Promise<FolderCreation<T>>;
  /**
   * A view of this store that keeps the folders it writes into open between calls, for a writer that appends
   * often to the same few files (a recorder: a run's records, the path index, the history journal). A call
   * through a kept folder that throws (the folder was removed or moved meanwhile) lets it go, and the next call
   * opens it again: an append is never retried, since a failed one may have landed. `close` releases the kept
   * folders and leaves this store open.
   */
  openSession(): Promise<ProjectStore>;
  /** Opens `key` for line-at-a-time synchronous appends (an event log); created when missing. */
  openAppender(key: string): Promise<LineAppender>;
  /** The project's content-addressed objects (`.agent/objects/sha256/...`), verified by hash on write and read. */
  openObjects(options?: ObjectStoreOptions): Promise<ObjectStore>;
  /** Releases what the store holds open; the store is not used after. */
  close(): Promise<void>;
}
