import type { Stats } from 'node:fs';
import type { QuickHandle } from './quick-fs.js';
import type { FilesystemRefusalCode } from './write-outcome.js';

/** Why a confined read refused an entry: what the writer refuses, and a regular file with more than one link. */
export type ReadRefusalCode =
  | FilesystemRefusalCode
  /** The file has more than one name: its bytes may be those of a file outside the root. */
  | 'hard_link';

/** A read the confined walk refused, and the entry below the root where it found the problem. */
export interface ReadRefusal {
  readonly kind: 'refused';
  readonly code: ReadRefusalCode;
  /** The offending entry below the root (`/`-separated): a symlinked folder on the way, or the file itself. */
  readonly relativePath: string;
  /** True when the folder holding the file moved or was replaced while it was read (a concurrent swap). */
  readonly swapped?: true;
}

/** What opening a file below the root for reading found. */
export type FileOpening =
  | {
      readonly kind: 'opened';
      /** The file opened read-only; the caller reads it and closes it. */
      readonly handle: QuickHandle;
      /** fstat(2) of the opened file: what is read is exactly this file. */
      readonly stats: Stats;
    }
  | { readonly kind: 'missing' }
  | ReadRefusal;
