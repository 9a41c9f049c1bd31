import { redactSecrets } from '../events/index.js';
import { pathCollisionKey, WorkspaceError } from '../workspace/index.js';
import type { ConfinedRoot, WriteBatch } from '../workspace/index.js';
import { describeError, sha256Hex } from '../project/index.js';
import type { BlockOutcome } from './block-outcome.js';
import { warningsOfPath } from './block-warning.js';
import type { IngestRoots } from './ingest-roots.js';
import type { ReportProblem } from './ingest-problem.js';
import type { BlockPlan } from './plan-blocks.js';
import { applyEdit } from './apply-edit.js';
import type { EditContext } from './apply-edit.js';
import { statusOfReason } from './reason-code.js';
import type { ReasonCode } from './reason-code.js';

/** The bytes of one block that are now on disk in the workspace, written by this ingest or already there. */
export interface IngestedContent {
  /** Project-relative path: `workspace/<path>`. */
  readonly workspacePath: string;
  /** The fence's lang ('' when the fence named none). */
  readonly lang: string;
  readonly bytes: Uint8Array;
  /**
   * The block's manifest status (spec ingest.md section 2): `written` by this ingest, or `skipped` with `code`
   * `unchanged`, the file already holding exactly these bytes (no other skipped block leaves bytes on disk).
   */
  readonly status: 'written' | 'skipped';
  /** The block's reason code, as in {@link BlockOutcome}: `unchanged` when skipped, null when written. */
  readonly code: 'unchanged' | null;
}

/** Every plan's outcome, and the contents now on disk (cleared plans written, or skipped as `unchanged`). */
export interface AppliedPlans {
  readonly blocks: BlockOutcome[];
  /** Bounded by max_total_bytes: only cleared plans count, and planBlocks caps their total. */
  readonly contents: IngestedContent[];
  /**
   * With `digestReplaced`, by block index, for each plan whose bytes are now on disk: the sha256 of what its path
   * held before (null when it held no file); a plan found `unchanged` held its own bytes.
   */
  readonly replaced?: ReadonlyMap<number, string | null>;
}

/** How plans are carried out. */
export interface ApplyOptions {
  /** Where the workspace root comes from; whoever made the roots closes them. */
  readonly roots: IngestRoots;
  readonly dryRun: boolean;
  readonly durability: 'fsync' | 'none';
  /** Temp files older than this (epoch ms) beside a target are a dead writer's (see `ConfinedWriteOptions`). */
  readonly staleTempBefore?: number;
  /**
   * A batch of the workspace root to write through, which its caller finishes (a streaming ingest's, kept over a
   * burst of blocks without durability); by default each call makes one and finishes it.
   */
  readonly batch?: WriteBatch;
  /** Report in `AppliedPlans.replaced` what each written path held before (see `ConfinedWriteOptions`). */
  readonly digestReplaced?: boolean;
}

/**
 * How many of a document's files are written at once: each write is a chain of small filesystem calls on
 * libuv's threadpool (4 threads by default), so a few in flight overlap their latencies.
 */
export const WRITE_CONCURRENCY = 4;

const patchEncoder = new TextEncoder();

/** Writes every cleared plan through the confined writer; returns every plan's outcome and the bytes now on disk. */
export async function applyPlans(
  plans: readonly BlockPlan[],
  options: ApplyOptions,
  report: ReportProblem,
): Promise<AppliedPlans> {
  const { workspace, missing } = plans.some((plan) => plan.kind === 'write')
    ? await openWorkspace(options, report)
    : { workspace: null, missing: false };
  // One batch per document: a folder is walked once and, under fsync, synced once after its last rename.
  const batch = workspace === null ? null : (options.batch ?? workspace.writeBatch());
  const edits: EditContext = { workspace, placed: new Map() };
  const applied: AppliedPlan[] = [];
  let next = 0;
  const lane = async (): Promise<void> => {
    for (let index = next++; index < plans.length; index = next++) {
      const plan = plans[index];
      if (plan !== undefined) applied[index] = await applyPlan(plan, batch, missing, options, edits);
    }
  };
  // One plan (a streamed block) needs one lane, and no check of the order of writes.
  const width =
    plans.length < 2 ? 1 : writesAreIndependent(plans) ? Math.min(WRITE_CONCURRENCY, plans.length) : 1;
  const lanes = Array.from({ length: width }, lane);
  // allSettled: the batch is finished only once no write is in flight, even when a lane failed.
  const settled = await Promise.allSettled(lanes);
  // Writes end in any order; their problems are reported in document order, as a sequential ingest would.
  // (forEach: a lane that threw leaves holes, skipped here; the throw follows.)
  applied.forEach((plan) => {
    if (plan.problem !== undefined) report('io_error', plan.problem);
  });
  if (batch !== null && options.batch === undefined) await finishBatch(batch, applied, report);
  for (const ended of settled) if (ended.status === 'rejected') throw ended.reason;
  const replaced = new Map<number, string | null>();
  if (options.digestReplaced === true)
    for (const plan of applied) {
      if (plan.replaced !== undefined && plan.content !== undefined)
        replaced.set(plan.block.index, plan.replaced);
    }
  return {
    blocks: applied.map((plan) => plan.block),
    contents: applied.flatMap((plan) => (plan.content === undefined ? [] : [plan.content])),
    ...(options.digestReplaced === true ? { replaced } : {}),
  };
}

/**
 * Whether the order of the writes cannot change their outcomes: no path (compared as the filesystem may fold
 * it) is a folder of another, as `a.ts` and `a.ts/b.ts` are, where the first written decides the other's fate.
 */
function writesAreIndependent(plans: readonly BlockPlan[]): boolean {
  const files = new Set<string>();
  const folders = new Set<string>();
  for (const plan of plans) {
    if (plan.kind !== 'write') continue;
    // An edit block applies to what the blocks before it left: document order decides its outcome.
    if (plan.edit === true) return false;
    const key = pathCollisionKey(plan.path);
    files.add(key);
    for (let slash = key.indexOf('/'); slash !== -1; slash = key.indexOf('/', slash + 1)) {
      folders.add(key.slice(0, slash));
    }
  }
  for (const file of files) if (folders.has(file)) return false;
  return true;
}

/**
 * Syncs the batch's folders; a file whose folder could not be synced is not durably in place, so its block
 * becomes an io_error and its content is not recorded, as when a single write's folder sync fails.
 */
async function finishBatch(batch: WriteBatch, applied: AppliedPlan[], report: ReportProblem): Promise<void> {
  let unsynced;
  try {
    unsynced = await batch.finish();
  } catch (error) {
    report('io_error', `syncing workspace/ folders: ${describeError(error)}`);
    return;
  }
  for (const { directory, paths, error } of unsynced) {
    report('io_error', `syncing workspace/${directory}: ${describeError(error)}`);
    const failed = new Set(paths.map((path) => `workspace/${path}`));
    applied.forEach((plan, index) => {
      if (plan.content === undefined || !failed.has(plan.content.workspacePath)) return;
      applied[index] = {
        block: {
          ...plan.block,
          status: statusOfReason('io_error'),
          code: 'io_error',
          message: redactSecrets(describeError(error)),
        },
      };
    });
  }
}

/** One plan's outcome, and its content when its bytes are now on disk. */
interface AppliedPlan {
  readonly block: BlockOutcome;
  readonly content?: IngestedContent;
  /** An I/O problem of this write, reported once every write has settled, in document order. */
  readonly problem?: string;
  /** On a dry run, the bytes that would be at the path (no content is reported), for the edit blocks after it. */
  readonly placed?: Uint8Array;
  /** With `digestReplaced`: the sha256 of what the path held before the write (null when no file). */
  readonly replaced?: string | null;
}

async function openWorkspace(
  options: ApplyOptions,
  report: ReportProblem,
): Promise<{ workspace: ConfinedRoot | null; missing: boolean }> {
  try {
    return { workspace: await options.roots.workspace(), missing: false };
  } catch (error) {
    // A dry run creates nothing, so a missing workspace/ is simply empty: every cleared block would be written.
    const missing = options.dryRun && error instanceof WorkspaceError && error.code === 'ENOENT';
    if (!missing) report('io_error', `cannot open workspace/: ${describeError(error)}`);
    return { workspace: null, missing };
  }
}

async function applyPlan(
  plan: BlockPlan,
  workspace: WriteBatch | null,
  workspaceMissing: boolean,
  options: ApplyOptions,
  edits: EditContext,
): Promise<AppliedPlan> {
  if (plan.kind === 'decided') return { block: outcome(plan, plan.path, plan.code, plan.message) };
  if (workspace === null && !workspaceMissing) {
    return {
      block: outcome(
        plan,
        plan.path,
        'io_error',
        'workspace/ could not be opened; see the ingest.error event',
      ),
    };
  }
  if (plan.edit !== true)
    return trackPlaced(await writePlan(plan, workspace, workspaceMissing, options), edits);
  let edited;
  try {
    edited = await applyEdit(plan, edits);
  } catch (error) {
    return {
      block: outcome(plan, plan.path, 'io_error', describeError(error)),
      problem: `reading workspace/${plan.path}: ${describeError(error)}`,
    };
  }
  if (!edited.ok) return { block: outcome(plan, plan.path, edited.code, edited.message) };
  return trackPlaced(await writePlan(edited.plan, workspace, workspaceMissing, options), edits);
}

/** Keeps the bytes a plan left at its path, for the edit blocks after it. */
function trackPlaced(applied: AppliedPlan, edits: EditContext): AppliedPlan {
  const { block } = applied;
  if (block.status === 'written' || block.code === 'unchanged') {
    const bytes = applied.content?.bytes ?? applied.placed;
    if (bytes !== undefined) edits.placed.set(block.workspacePath, bytes);
  }
  return applied;
}

async function writePlan(
  plan: BlockPlan & { kind: 'write' },
  workspace: WriteBatch | null,
  workspaceMissing: boolean,
  options: ApplyOptions,
): Promise<AppliedPlan> {
  if (workspace === null) {
    return workspaceMissing
      ? { block: wouldWrite(plan), placed: plan.bytes }
      : {
          block: outcome(
            plan,
            plan.path,
            'io_error',
            'workspace/ could not be opened; see the ingest.error event',
          ),
        };
  }
  try {
    const written = await workspace.write(plan.path, plan.bytes, {
      durability: options.durability,
      dryRun: options.dryRun,
      ...(options.staleTempBefore === undefined ? {} : { staleTempBefore: options.staleTempBefore }),
      ...(options.digestReplaced === true ? { digestReplaced: true } : {}),
    });
    switch (written.status) {
      case 'written':
        return {
          block: outcome(plan, plan.path, null, ''),
          content: contentOf(plan, 'written', null),
          ...(written.replacedSha256 === undefined ? {} : { replaced: written.replacedSha256 }),
        };
      case 'would_write':
        return { block: wouldWrite(plan), placed: plan.bytes };
      case 'unchanged': {
        const block = outcome(plan, plan.path, 'unchanged', 'the file already holds exactly these bytes');
        // A dry run places nothing, so it reports no contents even where the bytes already match.
        return options.dryRun
          ? { block, placed: plan.bytes }
          : {
              block,
              content: contentOf(plan, 'skipped', 'unchanged'),
              ...(options.digestReplaced === true ? { replaced: block.sha256 } : {}),
            };
      }
      case 'refused':
        return { block: outcome(plan, null, written.code, written.message) };
    }
  } catch (error) {
    return {
      block: outcome(plan, plan.path, 'io_error', describeError(error)),
      problem: `writing workspace/${plan.path}: ${describeError(error)}`,
    };
  }
}

function contentOf(
  plan: BlockPlan & { kind: 'write' },
  status: IngestedContent['status'],
  code: IngestedContent['code'],
): IngestedContent {
  // A patched file is recorded in its own language (from its extension), not as `diff`.
  const lang = plan.edit === true ? '' : plan.block.lang;
  return { workspacePath: `workspace/${plan.path}`, lang, bytes: plan.bytes, status, code };
}

function wouldWrite(plan: BlockPlan & { kind: 'write' }): BlockOutcome {
  return outcome(plan, plan.path, 'dry_run', 'would write');
}

function outcome(
  plan: BlockPlan,
  normalizedPath: string | null,
  code: ReasonCode | null,
  message: string,
): BlockOutcome {
  const warnings = (normalizedPath === null ? [] : warningsOfPath(normalizedPath)).map((warning) => ({
    ...warning,
    message: redactSecrets(warning.message),
  }));
  return {
    index: plan.block.index,
    lang: plan.block.lang,
    // A file= value that holds a secret is refused (secret_in_path) and recorded only in its redacted form.
    declaredFile: redactSecrets(plan.block.declaredFile),
    workspacePath: normalizedPath === null ? '' : `workspace/${normalizedPath}`,
    bytes: plan.bytes.byteLength,
    sha256: sha256Hex(plan.bytes),
    ...(plan.kind === 'write' && plan.edit === true
      ? { patchSha256: sha256Hex(patchEncoder.encode(plan.block.content)) }
      : {}),
    status: code === null ? 'written' : statusOfReason(code),
    code,
    message: redactSecrets(message),
    ...(warnings.length === 0 ? {} : { warnings }),
  };
}
