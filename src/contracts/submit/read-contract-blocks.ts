import { DEFAULT_INGEST_LIMITS, defaultMaxParseMs } from '../../config/index.js';
import type { FenceParser } from '../../project/index.js';
import { readArtifactAttribute } from '../../fence/index.js';
import { parseFencesIsolated } from '../../ingest/index.js';
import { fieldError } from '../types/index.js';
import type { FieldError } from '../types/index.js';

/** One ```` ```json artifact=<type> ```` block of a document. */
export interface ContractBlock {
  /** The type its info string names (not yet checked against the known types). */
  readonly type: string;
  /** The block's content: the JSON text. */
  readonly json: string;
  /** False when the document or its container ended before the closing fence (a cut-off answer). */
  readonly closed: boolean;
  /** 1-based line of the opening fence. */
  readonly line: number;
}

/** The contract blocks of one document, or none and `timedOut` when its parse overran the time limit. */
export interface ContractBlockScan {
  readonly blocks: readonly ContractBlock[];
  /** Present when the parse was stopped at `timeLimitMs`: no block of the document was read. */
  readonly timedOut?: true;
  /** Present when contract blocks came after the first `maxBlocks` candidates: how many, none of them read. */
  readonly omitted?: number;
}

/**
 * The contract blocks of a markdown document, in document order, found by the same CommonMark fence parser
 * in a worker thread stopped after `timeLimitMs` (default: `max_parse_ms`'s default for the parser). Only the
 * first `maxBlocks` candidates are read (`max_blocks`, as the ingest reads them); the contract blocks after them
 * are counted in `omitted`, so a document of a million blocks costs what one of `maxBlocks` does.
 */
export async function readContractBlocks(
  text: string,
  options: {
    readonly timeLimitMs?: number;
    readonly parser?: FenceParser | undefined;
    readonly maxBlocks?: number | undefined;
  } = {},
): Promise<ContractBlockScan> {
  // Cheap: no "artifact=" anywhere means no contract block, and no parse at all.
  if (!text.includes('artifact=')) return { blocks: [] };
  const scan = await parseFencesIsolated(text, {
    timeLimitMs: options.timeLimitMs ?? defaultMaxParseMs(options.parser),
    parser: options.parser,
    maxCandidates: options.maxBlocks ?? DEFAULT_INGEST_LIMITS.maxBlocks,
  });
  if (scan.timedOut === true) return { blocks: [], timedOut: true };
  const blocks: ContractBlock[] = [];
  for (const block of scan.blocks) {
    const type = readArtifactAttribute(block.info);
    if (type === undefined || block.fenceChar !== '`') continue;
    blocks.push({ type, json: block.content, closed: block.closed, line: block.startLine });
  }
  const omitted = scan.omitted?.byKind.artifact ?? 0;
  return omitted === 0 ? { blocks } : { blocks, omitted };
}

/** The one field error that stands for the `omitted` contract blocks a document held past `maxBlocks`. */
export function omittedBlocksError(omitted: number, maxBlocks?: number): FieldError {
  const limit = maxBlocks ?? DEFAULT_INGEST_LIMITS.maxBlocks;
  return fieldError(
    [],
    `at most max_blocks (${String(limit)}) candidate blocks in one document`,
    `${String(omitted)} more artifact= blocks after the first ${String(limit)} candidate blocks (max_blocks), not read`,
  );
}
