import { eventLevelOf, manifestArtifactOf } from './block-outcome.js';
import type { BlockOutcome } from './block-outcome.js';
import type { ArtifactStatus } from './reason-code.js';

/** One block as a short listing shows it: the manifest entry's own words, empty fields left out. */
export interface ListedBlock {
  /** The block's position among the document's candidates, as in the manifest. */
  readonly index: number;
  /** The `file=` value as written in the document ('' when the fence named none). */
  readonly declared_file: string;
  readonly status: ArtifactStatus;
  /** `workspace/<path>`; absent when the path itself was refused or the fence named none. */
  readonly workspace_path?: string;
  /** `<code>: <message>`, as in the manifest; absent for a written block. */
  readonly reason?: string;
  /** The entry's warnings (`workspace_prefix: ...`), as in the manifest; absent when it has none. */
  readonly warnings?: readonly string[];
}

/** At most `max` of a document's blocks, and how many more there were. */
export interface BlockListing {
  readonly blocks: readonly ListedBlock[];
  /** The blocks not listed; the manifest has every one. */
  readonly left_out: number;
}

// Refusals first, then losses, then what is on disk: the order of the event levels (ERROR, WARNING, INFO).
const RANK = { ERROR: 0, WARNING: 1, INFO: 2 } as const;

/**
 * A document's block outcomes listed for a reader, at most `max` of them: when there are more, the rejected
 * blocks are kept first, then the skipped ones that lost work, then the rest (written, `unchanged`,
 * `superseded`), and the kept ones are shown in document order.
 */
export function listBlockOutcomes(blocks: readonly BlockOutcome[], max: number): BlockListing {
  const kept =
    blocks.length <= max
      ? blocks
      : blocks
          .map((outcome, order) => ({ outcome, order, rank: RANK[eventLevelOf(outcome)] }))
          .sort((a, b) => a.rank - b.rank || a.order - b.order)
          .slice(0, Math.max(0, max))
          .sort((a, b) => a.order - b.order)
          .map((entry) => entry.outcome);
  return { blocks: kept.map(listedBlockOf), left_out: blocks.length - kept.length };
}

function listedBlockOf(outcome: BlockOutcome): ListedBlock {
  const entry = manifestArtifactOf(outcome);
  return {
    index: entry.index,
    declared_file: entry.declared_file,
    status: entry.status,
    ...(entry.workspace_path === '' ? {} : { workspace_path: entry.workspace_path }),
    ...(entry.reason === '' ? {} : { reason: entry.reason }),
    ...(entry.warnings === undefined ? {} : { warnings: entry.warnings }),
  };
}
