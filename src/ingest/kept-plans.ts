import type { FenceBlock, OmittedCandidateKind } from '../fence/index.js';
import type { OmittedBlocks } from './block-outcome.js';
import { limitCandidates, omittedKindOf } from './limit-candidates.js';
import type { BlockPlan } from './plan-blocks.js';

/** Bytes no one reads: those of a kept plan whose outcome the stream already knows, or of a file never recorded. */
export const NO_BYTES: Uint8Array = new Uint8Array(0);

/**
 * What a streaming ingest keeps of its blocks for the end's whole-document rules (`settlePlans`): each candidate
 * within max_blocks judged alone, in order, without its text, and without its bytes once its outcome is known (a
 * decided block, or a whole file a later one of its path supersedes), so it holds the bytes of the files the
 * document writes, not its text (and those only as the stream kept them: past its budget, stand-ins for bytes in
 * the object store, `KeptBytes`); the candidates past max_blocks only counted, by kind. An edit block keeps its
 * bytes (its patch, UTF-8): the end may apply it again, and then reads its text back from them.
 */
export class KeptPlans {
  private readonly plans: BlockPlan[] = [];
  private readonly pastMaxBlocks = new Map<OmittedCandidateKind, number>();
  /** Where in `plans` the last whole-file plan of each path is. */
  private readonly lastWriteOf = new Map<string, number>();

  constructor(private readonly maxBlocks: number) {}

  /** Counts a candidate past max_blocks by the reason it would have had alone: nothing else of it is kept. */
  countPastMaxBlocks(block: FenceBlock): void {
    const kind = omittedKindOf(block);
    this.pastMaxBlocks.set(kind, (this.pastMaxBlocks.get(kind) ?? 0) + 1);
  }

  /** Keeps the own plan (`planBlock`) of a block within max_blocks, as the end needs it. */
  keep(own: BlockPlan): void {
    const { block } = own;
    if (block.index >= this.maxBlocks) throw new Error('a block past max_blocks is counted, not kept');
    const textless = { ...block, content: '' };
    if (own.kind === 'write' && own.edit === true) {
      this.plans.push({ ...own, block: textless });
      return;
    }
    if (own.kind === 'decided') {
      this.plans.push({ ...own, block: textless, bytes: NO_BYTES });
      return;
    }
    const earlier = this.lastWriteOf.get(own.path);
    const superseded = earlier === undefined ? undefined : this.plans[earlier];
    if (earlier !== undefined && superseded !== undefined)
      this.plans[earlier] = { ...superseded, bytes: NO_BYTES };
    this.lastWriteOf.set(own.path, this.plans.length);
    this.plans.push({ ...own, block: textless });
  }

  /** The kept plans, and the candidates past max_blocks counted by the reason each would have had alone. */
  planned(): { readonly plans: readonly BlockPlan[]; readonly omitted: OmittedBlocks | undefined } {
    const count = [...this.pastMaxBlocks.values()].reduce((sum, n) => sum + n, 0);
    const omitted =
      count === 0
        ? undefined
        : limitCandidates(
            { blocks: [], omitted: { count, byKind: Object.fromEntries(this.pastMaxBlocks) } },
            this.maxBlocks,
          ).omitted;
    return { plans: this.plans, omitted };
  }
}
