import type { QuickHandle } from '../quick-fs.js';
import type { WriteStep } from '../confined-write-options.js';
import type { FilesystemRefusalCode } from '../write-outcome.js';

/** The workspace root, resolved once and held open: the trust anchor every check compares against. */
export interface RootAnchor {
  readonly realPath: string;
  readonly handle: QuickHandle;
}

/** A directory reached by a walk, addressed so that its entries can be named and its location re-checked. */
export interface DirectoryHandle {
  /** Path below the root, `/`-separated; '' for the root itself. */
  readonly relativePath: string;
  /** Where the directory must still be for a write into it to count as confined. */
  readonly expectedLocation: string;
  /** A path naming `name` inside this directory. */
  entry(name: string): string;
  /** Where the directory lies now, or undefined when that cannot be told (deleted, unreachable). */
  locate(): Promise<string | undefined>;
  /** Flushes the directory's entries (the rename) to disk. */
  sync(): Promise<void>;
  /** Releases what the walk holds open for this directory. */
  close(): Promise<void>;
}

/** What walking the directory components of a path found. */
export type WalkResult =
  | { readonly kind: 'opened'; readonly directory: DirectoryHandle }
  | { readonly kind: 'missing' }
  | { readonly kind: 'refused'; readonly code: FilesystemRefusalCode; readonly relativePath: string };

/** How a walk treats missing directories and whom it tells about its progress. */
export interface WalkOptions {
  /** Create missing directories; when false a missing one ends the walk with `missing`. */
  readonly create: boolean;
  readonly onStep: ((step: WriteStep) => void | Promise<void>) | undefined;
}

/** A strategy that opens the directory holding the target without following any symlink. */
export type DirectoryWalk = (
  root: RootAnchor,
  directories: readonly string[],
  options: WalkOptions,
) => Promise<WalkResult>;

/** How many times a walk retries one component that keeps appearing and vanishing under it. */
export const COMPONENT_ATTEMPTS = 8;
