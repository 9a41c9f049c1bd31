import { createHash } from 'node:crypto';
import path from 'node:path';
import { redactSecrets } from '../events/index.js';
import { openConfinedRoot, WorkspaceError } from '../workspace/index.js';
import type { ConfinedRoot } from '../workspace/index.js';
import type { ManifestArtifact } from './ingest-manifest.js';
import { describeError } from './ingest-problem.js';
import type { ReportProblem } from './ingest-problem.js';
import type { BlockPlan } from './plan-blocks.js';
import { statusOfReason } from './reason-code.js';
import type { ReasonCode } from './reason-code.js';

/** How plans are carried out. */
export interface ApplyOptions {
  readonly projectDir: string;
  readonly dryRun: boolean;
  readonly durability: 'fsync' | 'none';
}

/** Writes every cleared plan through the confined writer and turns every plan into its manifest entry. */
export async function applyPlans(
  plans: readonly BlockPlan[],
  options: ApplyOptions,
  report: ReportProblem,
): Promise<ManifestArtifact[]> {
  const { workspace, missing } = plans.some((plan) => plan.kind === 'write')
    ? await openWorkspace(options, report)
    : { workspace: null, missing: false };
  const artifacts: ManifestArtifact[] = [];
  try {
    for (const plan of plans) artifacts.push(await applyPlan(plan, workspace, missing, options, report));
  } finally {
    await workspace?.close();
  }
  return artifacts.map((artifact) => ({ ...artifact, reason: redactSecrets(artifact.reason) }));
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
): Promise<ManifestArtifact> {
  if (plan.kind === 'decided') return entry(plan, plan.path, plan.code, plan.message);
  if (workspace === null) {
    return workspaceMissing
      ? wouldWrite(plan)
      : entry(plan, plan.path, 'io_error', 'workspace/ could not be opened; see the ingest.error event');
  }
  try {
    const outcome = await workspace.write(plan.path, plan.bytes, {
      durability: options.durability,
      dryRun: options.dryRun,
    });
    switch (outcome.status) {
      case 'written':
        return entry(plan, plan.path, null, '');
      case 'would_write':
        return wouldWrite(plan);
      case 'unchanged':
        return entry(plan, plan.path, 'unchanged', 'the file already holds exactly these bytes');
      case 'refused':
        return entry(plan, null, outcome.code, outcome.message);
    }
  } catch (error) {
    report('io_error', `writing workspace/${plan.path}: ${describeError(error)}`);
    return entry(plan, plan.path, 'io_error', describeError(error));
  }
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
