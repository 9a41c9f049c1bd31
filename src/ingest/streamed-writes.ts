import { pathCollisionKey } from '../workspace/index.js';
import type { ConfinedRoot } from '../workspace/index.js';
import { sha256Hex } from '../project/index.js';
import { applyPlans } from './apply-plans.js';
import type { AppliedPlans, ApplyOptions, IngestedContent } from './apply-plans.js';
import type { BlockOutcome } from './block-outcome.js';
import type { BlockWarning } from './block-warning.js';
import type { ReportProblem } from './ingest-problem.js';
import type { BlockPlan } from './plan-blocks.js';

/** What a streaming ingest wrote to one workspace path. */
interface StreamedPath {
  /** SHA-256 of the file before the stream first wrote it, or null when there was none. */
  readonly before: string | null;
  /** The last block the stream wrote there: its index, and its outcome. */
  last: BlockOutcome;
  lang: string;
  bytes: Uint8Array;
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
    const decided = (code: 'case_collision' | 'too_large', message: string): BlockPlan => ({
      kind: 'decided',
      block: plan.block,
      bytes: plan.bytes,
      path: plan.path,
      code,
      message,
    });
    if (other !== undefined && other !== plan.path) {
      return decided(
        'case_collision',
        `'${plan.path}' differs from ${other} only by case or Unicode normalization; ${other} was already written while streaming, so this block is not: rename one`,
      );
    }
    const replaced = this.paths.get(plan.path)?.bytes.byteLength ?? 0;
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

  /** Notes a block the stream placed (written, or already there): `before` is the file's hash before the stream. */
  placed(plan: BlockPlan & { kind: 'write' }, outcome: BlockOutcome, before: string | null): void {
    const known = this.paths.get(plan.path);
    if (outcome.status === 'written') this.written.add(outcome.index);
    this.total += plan.bytes.byteLength - (known?.bytes.byteLength ?? 0);
    this.byKey.set(pathCollisionKey(plan.path), plan.path);
    this.paths.set(plan.path, {
      before: known === undefined ? before : known.before,
      last: outcome,
      lang: plan.block.lang,
      bytes: plan.bytes,
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
    const applied = await applyPlans(plans, options, report);
    const cleared = new Set(plans.flatMap((plan) => (plan.kind === 'write' ? [plan.path] : [])));
    const kept = new Map<number, StreamedPath>();
    for (const streamed of this.paths.values()) {
      if (!cleared.has(streamed.last.workspacePath.slice('workspace/'.length)))
        kept.set(streamed.last.index, streamed);
    }
    const blocks = applied.blocks.map((outcome, position) => {
      const plan = plans[position];
      const keptHere = kept.get(outcome.index);
      if (keptHere !== undefined) return keptWritten(keptHere.last, outcome);
      if (plan?.kind !== 'write' || outcome.status === 'rejected') return outcome;
      const streamed = this.paths.get(plan.path);
      if (streamed === undefined || (outcome.status !== 'written' && outcome.code !== 'unchanged'))
        return outcome;
      return streamed.before === outcome.sha256 ? asUnchanged(outcome) : asWritten(outcome);
    });
    return { blocks, contents: contentsOf(blocks, plans) };
  };
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

/** The bytes each outcome left on disk, in document order, as {@link applyPlans} lists them. */
function contentsOf(blocks: readonly BlockOutcome[], plans: readonly BlockPlan[]): IngestedContent[] {
  return blocks.flatMap((outcome, position): IngestedContent[] => {
    const plan = plans[position];
    if (plan === undefined || outcome.workspacePath === '') return [];
    if (outcome.status === 'written')
      return [
        {
          workspacePath: outcome.workspacePath,
          lang: outcome.lang,
          bytes: plan.bytes,
          status: 'written',
          code: null,
        },
      ];
    if (outcome.code === 'unchanged')
      return [
        {
          workspacePath: outcome.workspacePath,
          lang: outcome.lang,
          bytes: plan.bytes,
          status: 'skipped',
          code: 'unchanged',
        },
      ];
    return [];
  });
}
