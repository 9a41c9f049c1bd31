import { createHash } from 'node:crypto';
import path from 'node:path';
import { redactSecrets } from '../events/index.js';
import { openConfinedRoot, WorkspaceError } from '../workspace/index.js';
import type { ConfinedRoot } from '../workspace/index.js';
import type { ManifestArtifact } from './ingest-manifest.js';
import { describeError } from '../project/index.js';
import type { ReportProblem } from './ingest-problem.js';
import type { BlockPlan } from './plan-blocks.js';
import { statusOfReason } from './reason-code.js';
import type { ReasonCode } from './reason-code.js';

/** The bytes of one block that are now on disk in the workspace, written by this ingest or already there. */
export interface IngestedContent {
  /** Project-relative path: `workspace/<path>`. */
  readonly workspacePath: string;
  /** The fence's lang ('' when the fence named none). */
  readonly lang: string;
  readonly bytes: Uint8Array;
  /** `written` by this ingest, or `unchanged`: the file already held exactly these bytes. */
  readonly status: 'written' | 'unchanged';
}

/** Every plan's manifest entry, and the contents now on disk (cleared plans written or found unchanged). */
export interface AppliedPlans {
  readonly artifacts: ManifestArtifact[];
  /** Bounded by max_total_bytes: only cleared plans count, and planBlocks caps their total. */
  readonly contents: IngestedContent[];
}

/** How plans are carried out. */
export interface ApplyOptions {
  readonly projectDir: string;
  readonly dryRun: boolean;
  readonly durability: 'fsync' | 'none';
}

/** Writes every cleared plan through the confined writer; returns every plan's manifest entry and the bytes now on disk. */
export async function applyPlans(
  plans: readonly BlockPlan[],
  options: ApplyOptions,
  report: ReportProblem,
): Promise<AppliedPlans> {
  const { workspace, missing } = plans.some((plan) => plan.kind === 'write')
    ? await openWorkspace(options, report)
    : { workspace: null, missing: false };
  const artifacts: ManifestArtifact[] = [];
  const contents: IngestedContent[] = [];
  try {
    for (const plan of plans) {
      const applied = await applyPlan(plan, workspace, missing, options, report);
      artifacts.push(applied.artifact);
      if (applied.content !== undefined) contents.push(applied.content);
    }
  } finally {
    await workspace?.close();
  }
  return {
    artifacts: artifacts.map((artifact) => ({ ...artifact, reason: redactSecrets(artifact.reason) })),
    contents,
  };
}

/** One plan's manifest entry, and its content when its bytes are now on disk. */
interface AppliedPlan {
  readonly artifact: ManifestArtifact;
  readonly content?: IngestedContent;
}

async function openWorkspace(
  options: ApplyOptions,
  report: ReportProblem,
): Promise<{ workspace: ConfinedRoot | null; missing: boolean }> {
  try {
    const workspace = await openConfinedRoot(path.join(options.projectDir, 'workspace'), {
      create: !options.dryRun,
    });
    return { workspace, missing: false };
  } catch (error) {
    // A dry run creates nothing, so a missing workspace/ is simply empty: every cleared block would be written.
    const missing = options.dryRun && error instanceof WorkspaceError && error.code === 'ENOENT';
    if (!missing) report('io_error', `cannot open workspace/: ${describeError(error)}`);
    return { workspace: null, missing };
  }
}

async function applyPlan(
  plan: BlockPlan,
  workspace: ConfinedRoot | null,
  workspaceMissing: boolean,
  options: ApplyOptions,
  report: ReportProblem,
): Promise<AppliedPlan> {
  if (plan.kind === 'decided') return { artifact: entry(plan, plan.path, plan.code, plan.message) };
  if (workspace === null) {
    return {
      artifact: workspaceMissing
        ? wouldWrite(plan)
        : entry(plan, plan.path, 'io_error', 'workspace/ could not be opened; see the ingest.error event'),
    };
  }
  try {
    const outcome = await workspace.write(plan.path, plan.bytes, {
      durability: options.durability,
      dryRun: options.dryRun,
    });
    switch (outcome.status) {
      case 'written':
        return { artifact: entry(plan, plan.path, null, ''), content: contentOf(plan, 'written') };
      case 'would_write':
        return { artifact: wouldWrite(plan) };
      case 'unchanged': {
        const artifact = entry(plan, plan.path, 'unchanged', 'the file already holds exactly these bytes');
        // A dry run places nothing, so it reports no contents even where the bytes already match.
        return options.dryRun ? { artifact } : { artifact, content: contentOf(plan, 'unchanged') };
      }
      case 'refused':
        return { artifact: entry(plan, null, outcome.code, outcome.message) };
    }
  } catch (error) {
    report('io_error', `writing workspace/${plan.path}: ${describeError(error)}`);
    return { artifact: entry(plan, plan.path, 'io_error', describeError(error)) };
  }
}

function contentOf(plan: BlockPlan & { kind: 'write' }, status: IngestedContent['status']): IngestedContent {
  return { workspacePath: `workspace/${plan.path}`, lang: plan.block.lang, bytes: plan.bytes, status };
}

function wouldWrite(plan: BlockPlan & { kind: 'write' }): ManifestArtifact {
  return { ...entry(plan, plan.path, null, ''), reason: 'dry_run: would write' };
}

function entry(
  plan: BlockPlan,
  normalizedPath: string | null,
  code: ReasonCode | null,
  message: string,
): ManifestArtifact {
  return {
    index: plan.block.index,
    lang: plan.block.lang,
    declared_file: plan.block.declaredFile,
    workspace_path: normalizedPath === null ? '' : `workspace/${normalizedPath}`,
    bytes: plan.bytes.byteLength,
    sha256: createHash('sha256').update(plan.bytes).digest('hex'),
    status: code === null ? 'written' : statusOfReason(code),
    reason: code === null ? '' : `${code}: ${message}`,
  };
}
