/** Size and count limits for one document; exceeding one gives `too_large` or `too_many_blocks`, never a crash. */
export interface IngestLimits {
  /** Largest document read, in bytes (UTF-8). */
  readonly maxDocumentBytes: number;
  /** Largest single block written, in bytes. */
  readonly maxBlockBytes: number;
  /** Most candidate blocks handled in one document; later ones are skipped as `too_many_blocks`. */
  readonly maxBlocks: number;
  /** Most bytes written from one document, all blocks together. */
  readonly maxTotalBytes: number;
  /** Longest parse of one document, in milliseconds; hostile markdown can make parsing superlinear. */
  readonly maxParseMs: number;
}

const MIB = 1024 * 1024;

/** Limits used when the config file sets none: generous for agent-written documents, bounded for memory. */
export const DEFAULT_INGEST_LIMITS: IngestLimits = Object.freeze({
  maxDocumentBytes: 16 * MIB,
  maxBlockBytes: 4 * MIB,
  maxBlocks: 500,
  maxTotalBytes: 16 * MIB,
  // A 16 MiB document parses in about 16 s on a slow 2-core machine (docs/benchmarks.md).
  maxParseMs: 30_000,
});
