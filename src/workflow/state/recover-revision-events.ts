import type { RunId } from '../../project/index.js';
import { usingProject } from '../../store/index.js';
import type { Project, ProjectRef } from '../../store/index.js';
import { acquireStateLock } from './acquire-state-lock.js';
import { appendRevisionEvents } from './append-revision-events.js';
import { findMissingRevisionEvents } from './find-missing-revision-events.js';
import { readWorkflowState } from './read-workflow-state.js';
import { WorkflowStateError } from './workflow-state-error.js';
import type { WorkflowState } from '../../runs/index.js';

/** How long a read waits for the state lock before leaving the recovery to its holder. */
const RECOVERY_WAIT_MS = 500;

/**
 * Appends, marked `recovered`, the events of `state`'s revision that events.jsonl lacks; the caller holds the
 * run's state lock, so no writer of that revision can still be about to append them.
 */
export async function appendMissingRevisionEvents(project: Project, state: WorkflowState): Promise<void> {
  const missing = await findMissingRevisionEvents(project, state);
  await appendRevisionEvents(project, state, missing, { recovered: true });
}

/** Options of {@link recoverRevisionEvents}. */
export interface RecoverOptions {
  /** How long to wait for another holder of the state lock (default 0.5 s); after that, the holder recovers. */
  readonly lockWaitMs?: number;
}

/**
 * Makes events.jsonl hold the events of the run's current state revision (D89): when some are missing (its
 * writer was killed between state.json and events.jsonl), takes the state lock, reads the state again and
 * appends what is still missing, marked `recovered`. Returns the state as last read. A lock held by a live
 * process past the wait is left to it: every change appends the missing events of the state it starts from.
 */
export async function recoverRevisionEvents(
  project: ProjectRef,
  state: WorkflowState,
  options: RecoverOptions = {},
): Promise<WorkflowState> {
  return usingProject(project, async (opened) => {
    if ((await findMissingRevisionEvents(opened, state)).length === 0) return state;
    const waitMs = options.lockWaitMs ?? RECOVERY_WAIT_MS;
    return withStateLock(opened, state.run_id, waitMs, state, async () => {
      const current = await readWorkflowState(opened, state.run_id);
      await appendMissingRevisionEvents(opened, current);
      return current;
    });
  });
}

async function withStateLock(
  project: Project,
  runId: RunId,
  waitMs: number,
  fallback: WorkflowState,
  work: () => Promise<WorkflowState>,
): Promise<WorkflowState> {
  let lock;
  try {
    lock = await acquireStateLock(project, runId, { waitMs });
  } catch (error) {
    if (error instanceof WorkflowStateError && error.code === 'state_locked') return fallback;
    throw error;
  }
  try {
    return await work();
  } finally {
    await lock.release();
  }
}
