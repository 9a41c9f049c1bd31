import { readArtifactAttribute } from '../fence/index.js';
import type { FenceBlock, FenceScan, OmittedCandidateKind } from '../fence/index.js';
import { sha256Hex } from '../project/index.js';
import type { BlockOutcome, OmittedBlocks } from './block-outcome.js';
import type { ReasonCode } from './reason-code.js';

/** A document's candidates within `max_blocks`, and the rest counted by the reason each would have had. */
export interface LimitedCandidates {
  /** The first `max_blocks` candidates, in document order. */
  readonly blocks: readonly FenceBlock[];
  /** The candidates past `max_blocks`; undefined when there are none. */
  readonly omitted: OmittedBlocks | undefined;
}

const EMPTY_SHA256 = sha256Hex(new Uint8Array(0));

/**
 * Keeps a scan's first `maxBlocks` candidates and counts the rest (those the parser already left out, and any it
 * returned past the limit), each by the reason it would have had alone: `contract_block`, its format code, or
 * `too_many_blocks` for a block that was valid (issue 23: past the limits, count and summarise, never list).
 */
export function limitCandidates(
  scan: Pick<FenceScan, 'blocks' | 'omitted'>,
  maxBlocks: number,
): LimitedCandidates {
  const byReason = new Map<ReasonCode, number>();
  const add = (code: ReasonCode, count: number): void => {
    byReason.set(code, (byReason.get(code) ?? 0) + count);
  };
  const byKind: Readonly<Partial<Record<OmittedCandidateKind, number>>> = scan.omitted?.byKind ?? {};
  for (const [kind, count] of Object.entries(byKind)) add(reasonOfKind(kind as OmittedCandidateKind), count);
  const blocks: FenceBlock[] = [];
  for (const block of scan.blocks) {
    if (block.index < maxBlocks) blocks.push(block);
    else add(reasonOfKind(omittedKindOf(block)), 1);
  }
  const count = [...byReason.values()].reduce((sum, n) => sum + n, 0);
  if (count === 0) return { blocks, omitted: undefined };
  // Most frequent first, so the reason text starts with what the document is mostly made of.
  const sorted = [...byReason].sort(([a, m], [b, n]) => n - m || a.localeCompare(b));
  return { blocks, omitted: { count, byReason: Object.fromEntries(sorted) } };
}

/**
 * The one outcome that stands for every candidate past `max_blocks` (docs/manifest.md): index is the first of
 * them, no lang, file, path or content (bytes 0, the SHA-256 of nothing), skipped `too_many_blocks` with the
 * count and the counts by reason in its message and, as data, in `omitted`.
 */
export function omittedBlocksOutcome(omitted: OmittedBlocks, firstIndex: number): BlockOutcome {
  const reasons = Object.entries(omitted.byReason)
    .map(([code, count]) => `${code} ${String(count)}`)
    .join(', ');
  const blocks =
    omitted.count === 1
      ? '1 more candidate block was'
      : `${String(omitted.count)} more candidate blocks were`;
  return {
    index: firstIndex,
    lang: '',
    declaredFile: '',
    workspacePath: '',
    bytes: 0,
    sha256: EMPTY_SHA256,
    status: 'skipped',
    code: 'too_many_blocks',
    message: `${blocks} not ingested after the first ${String(firstIndex)} (max_blocks); by reason: ${reasons}. Split the document or raise ingest.limits.max_blocks`,
    omitted,
  };
}

/** What a candidate past `max_blocks` is counted as. */
export function omittedKindOf(block: FenceBlock): OmittedCandidateKind {
  if (readArtifactAttribute(block.info) !== undefined) return 'artifact';
  return block.verdict.valid ? 'valid' : block.verdict.code;
}

/** The reason planBlocks gives such a candidate first: a contract block, a format code, else the limit itself. */
function reasonOfKind(kind: OmittedCandidateKind): ReasonCode {
  if (kind === 'artifact') return 'contract_block';
  return kind === 'valid' ? 'too_many_blocks' : kind;
}
