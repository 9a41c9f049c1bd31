import { runDir, UnknownRunError } from '../../project/index.js';
import type { RunId } from '../../project/index.js';
import { projectOf, StoreError, storeLockSlot } from '../../store/index.js';
import type { ProjectRef, ProjectStore } from '../../store/index.js';
import { acquireShortLock } from '../../workspace/index.js';
import type { ShortLock, ShortLockOwner } from '../../workspace/index.js';
import { WorkflowStateError } from './workflow-state-error.js';
import { workflowStateLockPath } from '../../runs/index.js';

/** Who holds a workflow's state lock: the content of `.agent/runs/<run_id>/state.lock`. */
export type StateLockOwner = ShortLockOwner;

/** A held state lock. */
export type StateLock = ShortLock;

/** How long {@link acquireStateLock} waits for a live holder. */
export interface StateLockOptions {
  /** Give up with `state_locked` after this long (default 5 s: a holder keeps the lock for milliseconds). */
  readonly waitMs?: number;
}

const DEFAULT_WAIT_MS = 5_000;

/**
 * Takes `.agent/runs/<run_id>/state.lock` (the workspace's short lock, as a key of the project's store), waiting
 * while a live holder has it and taking over a stale one (its process is gone); throws {@link WorkflowStateError}
 * `state_locked` after `waitMs`. A store opened here for a folder path is closed with the lock.
 */
export async function acquireStateLock(
  project: ProjectRef,
  runId: RunId,
  options: StateLockOptions = {},
): Promise<StateLock> {
  const { store } = projectOf(project);
  const done = typeof project === 'string' ? () => store.close() : () => Promise.resolve();
  try {
    await checkRunFolder(store, runId);
    const relative = workflowStateLockPath(runId);
    const attempt = await acquireShortLock(storeLockSlot(store, relative), {
      waitMs: options.waitMs ?? DEFAULT_WAIT_MS,
    });
    if (attempt.acquired) {
      const { lock } = attempt;
      return { ...lock, release: () => lock.release().finally(done) };
    }
    throw new WorkflowStateError(
      'state_locked',
      `workflow run ${runId} is busy: ${relative} is held by ${attempt.holder}; call workflow_status and retry`,
    );
  } catch (error) {
    await done();
    throw error;
  }
}

/**
 * Refuses a run folder (or a folder on the way) that is a symlink or not a directory; a run with nothing stored
 * is unknown.
 */
async function checkRunFolder(store: ProjectStore, runId: RunId): Promise<void> {
  let entries;
  try {
    entries = await store.list(runDir(runId));
  } catch (error) {
    throw runFolderUnusable(error) ?? error;
  }
  if (entries.length === 0) throw new UnknownRunError(runId);
}

/**
 * The `run_dir_unusable` error for a store's refusal of the run folder (a symlink or a file in its place, or on
 * its way), or undefined for any other error.
 */
export function runFolderUnusable(error: unknown): WorkflowStateError | undefined {
  if (!(error instanceof StoreError) || (error.code !== 'not_a_file' && error.code !== 'write_refused')) {
    return undefined;
  }
  return new WorkflowStateError(
    'run_dir_unusable',
    `${error.message}; the run folder must be a real directory`,
    { cause: error },
  );
}
