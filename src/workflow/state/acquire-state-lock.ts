import path from 'node:path';
import { runDir, UnknownRunError } from '../../project/index.js';
import type { RunId } from '../../project/index.js';
import { acquireShortLock, inspectDirectoryChain } from '../../workspace/index.js';
import type { ShortLock, ShortLockOwner } from '../../workspace/index.js';
import { WorkflowStateError } from './workflow-state-error.js';
import { workflowStateLockPath } from './workflow-state-paths.js';

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
 * Takes `.agent/runs/<run_id>/state.lock` (the workspace's short lock), waiting while a live holder has it
 * and taking over a stale one (its process is gone); throws {@link WorkflowStateError} `state_locked` after
 * `waitMs`.
 */
export async function acquireStateLock(
  projectDir: string,
  runId: RunId,
  options: StateLockOptions = {},
): Promise<StateLock> {
  await checkRunFolder(projectDir, runId);
  const relative = workflowStateLockPath(runId);
  const attempt = await acquireShortLock(path.join(projectDir, relative), {
    waitMs: options.waitMs ?? DEFAULT_WAIT_MS,
  });
  if (attempt.acquired) return attempt.lock;
  throw new WorkflowStateError(
    'state_locked',
    `workflow run ${runId} is busy: ${relative} is held by ${attempt.holder}; call workflow_status and retry`,
  );
}

/** Refuses a run folder (or a folder on the way) that is a symlink or not a directory; a missing run is unknown. */
async function checkRunFolder(projectDir: string, runId: RunId): Promise<void> {
  const problem = await inspectDirectoryChain(projectDir, runDir(runId));
  if (problem === undefined) return;
  if (problem.kind === 'missing') throw new UnknownRunError(runId);
  throw new WorkflowStateError(
    'run_dir_unusable',
    `${problem.at} is ${problem.kind === 'symlink' ? 'a symlink' : 'not a directory'}; the run folder must be a real directory`,
  );
}
