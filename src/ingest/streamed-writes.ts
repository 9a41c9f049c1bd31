import { pathCollisionKey } from '../workspace/index.js';
import type { ConfinedRoot } from '../workspace/index.js';
import { describeError, redactSecrets, sha256Hex } from '../project/index.js';
import { isEditBlock } from './edit-block.js';
import { statusOfReason } from './reason-code.js';
import { applyPlans } from './apply-plans.js';
import type { AppliedPlans, ApplyOptions, IngestedContent } from './apply-plans.js';
import type { BlockOutcome } from './block-outcome.js';
import type { BlockWarning } from './block-warning.js';
import type { ReportProblem } from './ingest-problem.js';
import { decidedPlan } from './plan-blocks.js';
import type { BlockPlan } from './plan-blocks.js';
import { NO_BYTES } from './kept-plans.js';

/** What a streaming ingest wrote to one workspace path. */
interface StreamedPath {
  /** SHA-256 of the file before the stream first wrote it, or null when there was none. */
  readonly before: string | null;
  /** The last block the stream wrote there: its index, and its outcome. */
  last: BlockOutcome;
  /** The bytes the document's blocks hold for this path so far (for `max_total_bytes`). */
  size: number;
  /**
   * The blocks placed at this path since the last whole file (that file's block, then the edit blocks after
   * it), by index: their outcomes and the bytes each left on disk. Earlier ones are superseded and let go.
   */
  chain: Map<number, { readonly outcome: BlockOutcome; readonly content: IngestedContent }>;
}

/**
 * The files one streaming ingest wrote as their blocks closed, and the document-wide rules as far as it has read:
 * paths that a case-insensitive filesystem would merge, and the bytes the document's files now hold.
 */
export class StreamedWrites {
  private readonly paths = new Map<string, StreamedPath>();
  private readonly byKey = new Map<string, string>();
  private total = 0;
  private readonly written = new Set<number>();
  /** How the stream decided each block (within max_blocks), by index. */
  private readonly outcomes = new Map<number, BlockOutcome>();

  /**
   * @param bytesOf The bytes a kept plan's `bytes` stand for (`KeptBytes.read`): a plan the end carries out again
   *   gets them back first.
   */
  constructor(private readonly bytesOf: (kept: Uint8Array) => Promise<Uint8Array>) {}

  /** Notes how the stream decided a block: the end takes a decided block's outcome from here. */
  decided(outcome: BlockOutcome): void {
    this.outcomes.set(outcome.index, outcome);
  }

  /** Whether the stream wrote the block of this index (its file, not found already in place). */
  wrote(index: number): boolean {
    return this.written.has(index);
  }

  /**
   * Why a cleared block cannot be written now that earlier blocks are on disk (a case collision with one of
   * them, or the document's files past `maxTotalBytes`), or undefined when it can.
   */
  refusal(plan: BlockPlan & { kind: 'write' }, maxTotalBytes: number): BlockPlan | undefined {
    const other = this.byKey.get(pathCollisionKey(plan.path));
    const decided = (code: 'case_collision' | 'too_large', message: string): BlockPlan =>
      decidedPlan(plan, plan.path, code, message);
    if (other !== undefined && other !== plan.path) {
      return decided(
        'case_collision',
        `'${plan.path}' differs from ${other} only by case or Unicode normalization; ${other} was already written while streaming, so this block is not: rename one`,
      );
    }
    const replaced = this.paths.get(plan.path)?.size ?? 0;
    if (this.total - replaced + plan.bytes.byteLength > maxTotalBytes) {
      return decided(
        'too_large',
        `the document's files exceed max_total_bytes (${maxTotalBytes} bytes) with the files already written while streaming`,
      );
    }
    return undefined;
  }

  /** Whether the stream has not written `path` yet (its file's state before the stream is then still to be read). */
  isNew(path: string): boolean {
    return !this.paths.has(path);
  }

  /**
   * Notes a block the stream placed (written, or already there) and the bytes it left on disk: `before` is the
   * file's hash before the stream.
   */
  placed(
    plan: BlockPlan & { kind: 'write' },
    outcome: BlockOutcome,
    content: IngestedContent,
    before: string | null,
  ): void {
    const known = this.paths.get(plan.path);
    if (outcome.status === 'written') this.written.add(outcome.index);
    this.total += plan.bytes.byteLength - (known?.size ?? 0);
    this.byKey.set(pathCollisionKey(plan.path), plan.path);
    // A whole file starts the path's chain again: the blocks before it are superseded, as the end will say.
    const chain = plan.edit === true && known !== undefined ? known.chain : new Map<number, never>();
    chain.set(outcome.index, { outcome, content });
    this.paths.set(plan.path, {
      before: known === undefined ? before : known.before,
      last: outcome,
      size: plan.bytes.byteLength,
      chain,
    });
  }

  /**
   * {@link applyPlans} for the whole document's plans once the stream has ended: a cleared block is written (or
   * found in place) and judged against the file as it was before the stream, as a post-write ingest judges it; a
   * path the stream wrote that no cleared block names keeps the last block written there, marked
   * `decided_while_streaming`, since a file on disk cannot be unwritten.
   */
  readonly applyPlans = async (
    plans: readonly BlockPlan[],
    options: ApplyOptions,
    report: ReportProblem,
  ): Promise<AppliedPlans> => {
    const placed = this.placedAlready(plans);
    // Only what the stream has not already placed exactly as the whole document plans it, nor decided as a block
    // whose content the end no longer has (its outcome is the stream's, its verdict the end's), is carried out now.
    const known = (plan: BlockPlan): BlockOutcome | undefined =>
      plan.kind === 'decided' && !isEditBlock(plan.block.lang, plan.block.declaredFile)
        ? this.outcomes.get(plan.block.index)
        : undefined;
    const rest = plans.filter((plan) => !placed.has(plan.block.index) && known(plan) === undefined);
    const applied = await applyPlans(
      await Promise.all(rest.map((plan) => this.withBytes(plan))),
      options,
      report,
    );
    const cleared = new Set(plans.flatMap((plan) => (plan.kind === 'write' ? [plan.path] : [])));
    const kept = new Map<number, StreamedPath>();
    for (const streamed of this.paths.values()) {
      if (!cleared.has(streamed.last.workspacePath.slice('workspace/'.length)))
        kept.set(streamed.last.index, streamed);
    }
    const appliedContents = applied.contents.values();
    // What the blocks before each one left at its path, as a post-write ingest judges it (the file before the stream first).
    const previous = new Map<string, string | null>();
    const blocks: BlockOutcome[] = [];
    const contents: IngestedContent[] = [];
    let next = 0;
    for (const plan of plans) {
      if (plan.kind === 'write' && placed.has(plan.block.index)) {
        const streamed = this.paths.get(plan.path);
        const link = streamed?.chain.get(plan.block.index);
        if (streamed === undefined || link === undefined) throw new Error('a placed block lost its record');
        const before = previous.has(plan.path) ? previous.get(plan.path) : streamed.before;
        previous.set(plan.path, link.outcome.sha256);
        const unchanged = before === link.outcome.sha256;
        blocks.push(unchanged ? asUnchanged(link.outcome) : asWritten(link.outcome));
        contents.push(
          unchanged
            ? { ...link.content, status: 'skipped', code: 'unchanged' }
            : { ...link.content, status: 'written', code: null },
        );
        continue;
      }
      const decided = known(plan);
      const outcome =
        decided === undefined || plan.kind !== 'decided'
          ? (applied.blocks[next++] ?? missingOutcome())
          : withVerdict(decided, plan);
      const content =
        decided === undefined && (outcome.status === 'written' || outcome.code === 'unchanged')
          ? appliedContents.next().value
          : undefined;
      const keptHere = kept.get(outcome.index);
      if (keptHere !== undefined) {
        blocks.push(keptWritten(keptHere.last, outcome));
        const link = keptHere.chain.get(keptHere.last.index);
        if (link !== undefined) contents.push({ ...link.content, status: 'written', code: null });
        continue;
      }
      const streamed = plan.kind === 'write' ? this.paths.get(plan.path) : undefined;
      let judged = outcome;
      if (plan.kind === 'write' && streamed !== undefined && content !== undefined) {
        const before = previous.has(plan.path) ? previous.get(plan.path) : streamed.before;
        previous.set(plan.path, outcome.sha256);
        judged = before === outcome.sha256 ? asUnchanged(outcome) : asWritten(outcome);
      }
      blocks.push(judged);
      if (content !== undefined)
        contents.push(
          judged.status === 'written'
            ? { ...content, status: 'written', code: null }
            : { ...content, status: 'skipped', code: 'unchanged' },
        );
    }
    return { blocks, contents };
  };

  /**
   * A kept plan with the bytes it stands for, and an edit block with its patch text again (its bytes are that
   * text's UTF-8, well-formed as the stream passed it on); one whose bytes cannot be read back is an `io_error`.
   */
  private async withBytes(plan: BlockPlan): Promise<BlockPlan> {
    try {
      const bytes = await this.bytesOf(plan.bytes);
      if (plan.kind === 'write' && plan.edit === true)
        return { ...plan, bytes, block: { ...plan.block, content: utf8.decode(bytes) } };
      return bytes === plan.bytes ? plan : { ...plan, bytes };
    } catch (error) {
      return decidedPlan(
        { block: plan.block, bytes: NO_BYTES },
        plan.path,
        'io_error',
        `its bytes, kept in the object store while streaming, could not be read back: ${describeError(error)}`,
      );
    }
  }

  /**
   * The cleared blocks the stream already placed as the whole document plans them: on each path, the longest run
   * of its cleared blocks, from the first, that the stream placed, when the last of them is the last block the
   * stream placed there (so the file holds what they leave). They are not carried out again; the blocks after
   * them on that path (an edit block the stream refused, say) are, against the file they left.
   */
  private placedAlready(plans: readonly BlockPlan[]): Set<number> {
    const planned = new Map<string, number[]>();
    for (const plan of plans) {
      if (plan.kind === 'write')
        planned.set(plan.path, [...(planned.get(plan.path) ?? []), plan.block.index]);
    }
    const placed = new Set<number>();
    for (const [path, indexes] of planned) {
      const streamed = this.paths.get(path);
      if (streamed === undefined) continue;
      const run = indexes.findIndex((index) => !streamed.chain.has(index));
      const prefix = run === -1 ? indexes : indexes.slice(0, run);
      if (prefix.at(-1) === streamed.last.index) for (const index of prefix) placed.add(index);
    }
    return placed;
  }
}

/** Reads the SHA-256 of `path` under the workspace root, or null when there is no regular file there. */
export async function hashOfFile(workspace: ConfinedRoot, path: string): Promise<string | null> {
  const opening = await workspace.openFile(path).catch(() => undefined);
  if (opening?.kind !== 'opened') return null;
  try {
    return sha256Hex(new Uint8Array(await opening.handle.readFile()));
  } catch {
    return null;
  } finally {
    await opening.handle.close();
  }
}

const utf8 = new TextDecoder();

const STREAMING_WARNING: BlockWarning = {
  code: 'decided_while_streaming',
  message:
    'written while streaming, before a later block of the document made a rule that looks at the whole document refuse it (a file on disk cannot be unwritten)',
};

function keptWritten(streamed: BlockOutcome, outcome: BlockOutcome): BlockOutcome {
  return {
    ...outcome,
    workspacePath: streamed.workspacePath,
    status: 'written',
    code: null,
    message: '',
    warnings: [...(streamed.warnings ?? []), STREAMING_WARNING],
  };
}

/** A block's outcome as the stream decided it, with the verdict the whole document gives it. */
function withVerdict(decided: BlockOutcome, plan: BlockPlan & { kind: 'decided' }): BlockOutcome {
  // Not an edit block's (those are applied again), so it has no patch_sha256.
  return {
    ...decided,
    workspacePath: plan.path === null ? '' : `workspace/${plan.path}`,
    status: statusOfReason(plan.code),
    code: plan.code,
    message: redactSecrets(plan.message),
  };
}

function asWritten(outcome: BlockOutcome): BlockOutcome {
  return { ...outcome, status: 'written', code: null, message: '' };
}

function asUnchanged(outcome: BlockOutcome): BlockOutcome {
  return {
    ...outcome,
    status: 'skipped',
    code: 'unchanged',
    message: 'the file already holds exactly these bytes',
  };
}

function missingOutcome(): never {
  throw new Error('applyPlans returned fewer outcomes than plans');
}
