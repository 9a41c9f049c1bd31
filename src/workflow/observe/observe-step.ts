import type { NodeId, RunId } from '../../project/index.js';
import { projectDirOf } from '../../store/index.js';
import type { ProjectRef } from '../../store/index.js';
import { ObserveError } from './observe-error.js';
import { readProjectSnapshot, snapshotPath, writeProjectSnapshot } from './project-snapshot-file.js';
import type { ProjectSnapshot } from './project-snapshot-schema.js';
import { reconcile } from './reconcile.js';
import type { Reconciliation } from './reconcile.js';
import { snapshotProject } from './snapshot-project.js';
import type { SnapshotOptions } from './snapshot-project.js';

/** Which step (or pass of a loop or ralph step) is observed. */
export interface ObservedStep {
  readonly runId: RunId;
  readonly step: NodeId;
  /** The 1-based pass of a loop or ralph step; absent for an action step. */
  readonly pass?: number;
}

/** Options of {@link beginStepObservation} and {@link endStepObservation}. */
export interface ObserveStepOptions extends SnapshotOptions {
  /** Snapshot file durability: `fsync` (default) or `none`. */
  readonly durability?: 'fsync' | 'none';
}

/**
 * The engine's `stepStarted`: snapshots the project (reusing the hashes of `previous`, such as the snapshot the
 * last step ended with) and stores it at {@link snapshotPath}, so a restarted server can still compare.
 */
export async function beginStepObservation(
  project: ProjectRef,
  step: ObservedStep,
  previous?: ProjectSnapshot,
  options: ObserveStepOptions = {},
): Promise<ProjectSnapshot> {
  // The project's files are on disk whatever the store: the snapshot of them is kept in the store.
  const snapshot = await snapshotProject(projectDirOf(project), previous, options);
  await writeProjectSnapshot(project, snapshotPath(step.runId, step.step, step.pass), snapshot, options);
  return snapshot;
}

/** What {@link endStepObservation} found: the reconciliation and the snapshot the step ended with. */
export interface StepObservation {
  readonly reconciliation: Reconciliation;
  readonly after: ProjectSnapshot;
}

/**
 * The engine's `stepEnding`: reads the snapshot stored when the step started, snapshots the project again
 * (hashing only what changed) and reconciles the two with the paths registered during the step.
 */
export async function endStepObservation(
  project: ProjectRef,
  step: ObservedStep,
  registered: readonly string[],
  options: SnapshotOptions = {},
): Promise<StepObservation> {
  const stored = snapshotPath(step.runId, step.step, step.pass);
  const before = await readProjectSnapshot(project, stored);
  if (before === undefined) {
    throw new ObserveError(
      'snapshot_unreadable',
      `${stored} is missing: the step's start was never observed; call beginStepObservation when the step starts`,
    );
  }
  const after = await snapshotProject(projectDirOf(project), before, options);
  return { reconciliation: reconcile(before, after, registered), after };
}
