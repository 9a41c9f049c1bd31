import type { EventLog } from '../events/index.js';
import type { Project } from '../store/index.js';
import { applyPlans as applyEveryPlan } from './apply-plans.js';
import type { applyPlans } from './apply-plans.js';
import type { AppliedPlans, ApplyOptions, IngestedContent } from './apply-plans.js';
import { holdWorkspaceLock } from './hold-workspace-lock.js';
import type { ReportProblem } from './ingest-problem.js';
import { decidedPlan } from './plan-blocks.js';
import type { BlockPlan } from './plan-blocks.js';

/** An `ingest.started` event lists at most this many planned paths (and counts them all): event lines stay small. */
export const MAX_STARTED_PATHS = 50;

/** How one document's cleared plans are placed and recorded. */
export interface PlaceOptions {
  /** Its store holds the workspace lock. */
  readonly project: Project;
  /** The document's event log (run, node and document already bound). */
  readonly events: EventLog;
  readonly apply: ApplyOptions;
  /** Records what was placed, under the workspace lock. */
  readonly onPlaced?: (contents: readonly IngestedContent[]) => Promise<void>;
  readonly lockWaitMs?: number;
  readonly report: ReportProblem;
  /** Carries out the plans (default {@link applyPlans}); the streaming ingest's accounts for what it wrote. */
  readonly applyPlans?: typeof applyPlans;
}

/**
 * Carries out a document's plans: when any block is to be written, under the project's workspace lock, first
 * an `ingest.started` event naming the planned paths (intent, before the first rename), then the writes, then
 * `onPlaced` (the records), so renames and records of one path are ordered across every ingest.
 */
export async function placeBlocks(plans: readonly BlockPlan[], options: PlaceOptions): Promise<AppliedPlans> {
  const { apply, report } = options;
  const applyPlans = options.applyPlans ?? applyEveryPlan;
  const planned = plans.flatMap((plan) => (plan.kind === 'write' ? [`workspace/${plan.path}`] : []));
  if (apply.dryRun || planned.length === 0) {
    const applied = await applyPlans(plans, apply, report);
    if (!apply.dryRun) await options.onPlaced?.(applied.contents);
    return applied;
  }
  const held = await holdWorkspaceLock(
    options.project,
    async (lockedAt) => {
      options.events.write('INFO', 'ingest.started', startedFields(planned));
      // Every writer of workspace/ holds this lock, so a temp file older than it is a dead writer's.
      const applied = await applyPlans(plans, { ...apply, staleTempBefore: lockedAt }, report);
      await options.onPlaced?.(applied.contents);
      return applied;
    },
    options.lockWaitMs === undefined ? {} : { waitMs: options.lockWaitMs },
  );
  switch (held.outcome) {
    case 'done':
      return held.value;
    case 'busy':
      // Writing without the lock could leave a record that is not the disk's: write nothing, and say so.
      report('io_error', `workspace/ was not written: ${held.reason}`);
      return applyPlans(
        plans.map((plan) => unwritten(plan, held.reason)),
        apply,
        report,
      );
    case 'unavailable': {
      // No lock file can be made (.agent/ is not a writable folder): no record can be written either, so
      // fail-open (spec ingest.md section 6) and place the files unordered.
      report('io_error', `${held.reason}; workspace/ is written without the lock`);
      options.events.write('INFO', 'ingest.started', startedFields(planned));
      const applied = await applyPlans(plans, apply, report);
      await options.onPlaced?.(applied.contents);
      return applied;
    }
  }
}

function startedFields(planned: readonly string[]): { planned: number; planned_paths: string[] } {
  return { planned: planned.length, planned_paths: planned.slice(0, MAX_STARTED_PATHS) };
}

/** A cleared plan that could not be carried out: an `io_error` outcome, so the manifest still lists it. */
function unwritten(plan: BlockPlan, reason: string): BlockPlan {
  return plan.kind === 'decided' ? plan : decidedPlan(plan, plan.path, 'io_error', reason);
}
