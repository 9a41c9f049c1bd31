import { openRunEventLog } from '../events/index.js';
import { runLockPath } from '../project/index.js';
import type { RunId } from '../project/index.js';
import type { RemoteStoreSettings } from '../remote/index.js';
import { usingProject } from '../store/index.js';
import type { ProjectRef } from '../store/index.js';
import { markPending } from './outbox.js';
import { startRunPush } from './run-push.js';
import type { PushEvents, RunPushOptions } from './run-push.js';

/** What {@link pushRunNow} pushes, and where it reports a push that failed. */
export interface PushRunNowOptions {
  readonly project: ProjectRef;
  readonly remote: RemoteStoreSettings;
  readonly runId: RunId;
  /** The run's event log, when the caller holds it open (default: opened here, and closed after). */
  readonly events?: PushEvents;
  /** Opens the remote store (default: `openRemoteStore`); for tests. */
  readonly openRemote?: RunPushOptions['openRemote'];
}

/**
 * Pushes run `runId` once, now, as a run's background push does at a node's end and at its end ({@link startRunPush}):
 * for a write made outside a graph run's runner (a workflow step that ended, a contract submission). Fail-open: it
 * never throws, a push that fails is a WARNING event of the run, and the run stays in the outbox until it is all
 * in the remote and no runner holds its lock here (a runner still running pushes the rest itself).
 */
export async function pushRunNow(options: PushRunNowOptions): Promise<{ readonly pushed: boolean }> {
  try {
    return await usingProject(options.project, async (project) => {
      const opened = options.events === undefined ? await openEvents(project, options.runId) : undefined;
      const events = options.events ?? opened ?? { write: () => undefined };
      try {
        const push = await startRunPush({
          project,
          remote: options.remote,
          runId: options.runId,
          events,
          ...(options.openRemote === undefined ? {} : { openRemote: options.openRemote }),
        });
        push.nodeEnded();
        const { pushed } = await push.finish();
        // Another push may have taken the run out of the outbox while this one failed, or a runner is still writing it.
        if (!pushed || (await project.store.info(runLockPath(options.runId))) !== undefined) {
          await markPending(project, options.runId);
        }
        return { pushed };
      } finally {
        await opened?.close().catch(() => undefined);
      }
    });
  } catch {
    // Fail-open (spec storage.md Part 2): the run's own write is done; `artifact-ingest push` sends what is left.
    return { pushed: false };
  }
}

async function openEvents(project: Parameters<typeof openRunEventLog>[0], runId: RunId) {
  try {
    return await openRunEventLog(project, runId, { run_id: runId });
  } catch {
    return undefined;
  }
}
