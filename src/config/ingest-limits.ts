import { DEFAULT_FENCE_PARSER, type FenceParser } from '../project/index.js';

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
const SCANNER_MAX_PARSE_MS = 10_000;
const MICROMARK_MAX_PARSE_MS = 30_000;

/** Limits used when the config file sets none: generous for agent-written documents, bounded for memory. */
export const DEFAULT_INGEST_LIMITS: IngestLimits = Object.freeze({
  maxDocumentBytes: 16 * MIB,
  maxBlockBytes: 4 * MIB,
  maxBlocks: 500,
  maxTotalBytes: 16 * MIB,
  maxParseMs: SCANNER_MAX_PARSE_MS,
});

/**
 * The default `max_parse_ms` for a block parser. The scanner's slowest 1 MB input measured (250,000 bare fence
 * lines) parses in about 0.16 s here, so a 16 MiB document (`max_document_bytes`) of any shape in about 3 s: 10 s
 * leaves room for a loaded machine and bounds the stall one document can cause. micromark does about 1 MB/s,
 * so its default leaves room for a 16 MiB document on a slow 2-core machine (docs/benchmarks.md).
 */
export function defaultMaxParseMs(parser: FenceParser = DEFAULT_FENCE_PARSER): number {
  return parser === 'micromark' ? MICROMARK_MAX_PARSE_MS : SCANNER_MAX_PARSE_MS;
}
