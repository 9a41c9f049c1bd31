/** A stage the writer has just passed, reported to `onStep` so tests and tracing can act between stages. */
export type WriteStep =
  | { readonly stage: 'directory-created'; readonly directory: string }
  | { readonly stage: 'directory-opened'; readonly directory: string }
  | { readonly stage: 'target-checked'; readonly path: string }
  | { readonly stage: 'temp-written'; readonly path: string }
  | { readonly stage: 'before-rename'; readonly path: string }
  | { readonly stage: 'renamed'; readonly path: string };

/** How one confined write runs. */
export interface ConfinedWriteOptions {
  /** `fsync` (default) flushes the file and its directory; `none` trades crash safety for speed. */
  readonly durability?: 'fsync' | 'none';
  /** Check everything read-only and report `would_write`, `unchanged` or `refused`; nothing is created. */
  readonly dryRun?: boolean;
  /**
   * Temp files (`TEMP_FILE_PATTERN`) last modified before this moment (epoch ms) in the target's directory are
   * a dead writer's and are removed before writing; default: an hour ago. A holder of the workspace lock
   * passes the moment it took the lock, since every writer there holds that lock.
   */
  readonly staleTempBefore?: number;
  /**
   * Create the file read-only (0444) instead of 0644: for files that are never rewritten in place, such as the
   * object store's, so no chmod follows the rename.
   */
  readonly readOnly?: boolean;
  /**
   * Report on a `written` outcome the sha256 of the regular file it replaced (`replacedSha256`, null when there
   * was none): such a file is read whole before the rename, even when its size alone shows it differs.
   */
  readonly digestReplaced?: boolean;
  /** Called after each stage, awaited before the next one starts. */
  readonly onStep?: (step: WriteStep) => void | Promise<void>;
}
