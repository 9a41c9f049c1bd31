import type { BundleEntryVerdict } from './judge-bundle-entry.js';
import type { BundleManifest } from './bundle-manifest.js';

/** How much a bundle may expand to: all entries together, one run file, one object. */
export interface BundleLimits {
  /** Most bytes of the uncompressed tar, and of its entries' sizes together. */
  readonly maxBytes: number;
  /** Most bytes of one run file (or of bundle.json). */
  readonly maxFileBytes: number;
  /** Most bytes of one object. */
  readonly maxObjectBytes: number;
}

/** One file entry of the archive (a run file or an object), hashed as it streamed by. */
export interface ScannedFile {
  readonly verdict: Extract<BundleEntryVerdict, { kind: 'runFile' | 'object' }>;
  /** sha256 of its bytes, 64 hex digits. */
  readonly sha256: string;
  readonly size: number;
  /** Its bytes, when the scan was asked to keep them (one entry at a time). */
  readonly bytes: Buffer | undefined;
}

/** What the scan needs from its caller. */
export interface ScanOptions {
  /** Whether to hand a file's bytes to `onFile`; anything else is hashed and dropped as it streams. */
  readonly keep: (verdict: ScannedFile['verdict']) => boolean;
  /**
   * A consumer to stream a file's body to as it arrives (never kept), or undefined; it starts once the files
   * before have settled, and the scan reads no further until it has taken what arrived. `onFile` follows it.
   */
  readonly stream?: (
    verdict: ScannedFile['verdict'],
  ) => ((body: AsyncIterable<Buffer>) => Promise<void>) | undefined;
  /** Called once per file entry, in archive order; the scan reads no further until it settles. */
  readonly onFile: (file: ScannedFile) => void | Promise<void>;
  /**
   * Called synchronously as each file entry ends, before the next entry is judged (`onFile` runs later, after the
   * files before it settled): for what `keep` must know about the entries that follow.
   */
  readonly inspect?: (file: ScannedFile) => void;
}

/** The manifest and folders of a scanned archive. */
export interface ScannedArchive {
  readonly manifest: BundleManifest;
  /** Run folders (project-relative, no trailing '/'), in archive order. */
  readonly runDirectories: readonly string[];
}
