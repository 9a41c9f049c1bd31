import { copyRun, RunCopyError } from '../artifacts/index.js';
import type { RunCopy } from '../artifacts/index.js';
import { describeError, runLockPath } from '../project/index.js';
import type { RunId } from '../project/index.js';
import { listRecordedRuns } from '../store/index.js';
import type { Project } from '../store/index.js';
import { clearPending, listPending } from './outbox.js';

/** Which runs {@link pushRuns} pushes. */
export interface PushRunsOptions {
  /** These runs; default: the runs the outbox holds. */
  readonly runIds?: readonly RunId[];
  /** Every run of the project, whatever the outbox says. */
  readonly all?: boolean;
  /** Told about each run as it starts and ends (stderr progress of `push`). */
  readonly onProgress?: (line: string) => void;
}

/** A run that could not be pushed, and why. */
export interface PushFailure {
  readonly runId: RunId;
  readonly code: string;
  readonly message: string;
}

/** What {@link pushRuns} did. */
export interface PushReport {
  readonly pushed: readonly RunCopy[];
  readonly failed: readonly PushFailure[];
  /** Runs still in the outbox after this push (failed, or still running here). */
  readonly pending: readonly RunId[];
}

/**
 * Pushes runs from `local` (this machine's `.agent/`) to `remote` (a Project on the remote store), one copy per run
 * ({@link copyRun}: idempotent, resumable after a kill at any point), and takes a run out of the outbox once it
 * is all in the remote and no runner holds its lock here. A run that fails is reported and the others go on.
 */
export async function pushRuns(
  local: Project,
  remote: Project,
  options: PushRunsOptions = {},
): Promise<PushReport> {
  const progress = options.onProgress ?? (() => undefined);
  const runIds =
    options.runIds ?? (options.all === true ? await listRecordedRuns(local) : await listPending(local));
  const pushed: RunCopy[] = [];
  const failed: PushFailure[] = [];
  let done = 0;
  for (const runId of runIds) {
    progress(`pushing run ${runId} (${String(++done)}/${String(runIds.length)})`);
    try {
      const copy = await copyRun(local, remote, runId, { direction: 'push' });
      pushed.push(copy);
      if ((await local.store.info(runLockPath(runId))) === undefined) await clearPending(local, runId);
    } catch (error) {
      failed.push({
        runId,
        code:
          error instanceof RunCopyError || hasCode(error)
            ? String((error as { code: unknown }).code)
            : 'push_failed',
        message: describeError(error),
      });
    }
  }
  return { pushed, failed, pending: await listPending(local) };
}

function hasCode(error: unknown): boolean {
  return typeof (error as { code?: unknown } | undefined)?.code === 'string';
}
