import { copyRun } from '../artifacts/index.js';
import { describeError } from '../project/index.js';
import type { RunId } from '../project/index.js';
import { openRemoteStore } from '../remote/index.js';
import type { RemoteStoreSettings } from '../remote/index.js';
import { openProject } from '../store/index.js';
import type { Project, ProjectStore } from '../store/index.js';
import { clearPending, markPending } from './outbox.js';

/** Where a run's push reports what went wrong: the run's event log. */
export interface PushEvents {
  write(level: 'INFO' | 'WARNING', event: string, fields: Record<string, unknown>): void;
}

/** What {@link startRunPush} pushes, and to where. */
export interface RunPushOptions {
  /** This machine's project: the run writes its `.agent/` first, as always. */
  readonly project: Project;
  readonly remote: RemoteStoreSettings;
  readonly runId: RunId;
  readonly events: PushEvents;
  /** How long the run's end waits for its last push once the remote answered (default 10 s). */
  readonly finishWaitMs?: number;
  /** Opens the remote store (default: {@link openRemoteStore}); for tests. */
  readonly openRemote?: () => Promise<ProjectStore>;
}

/** A run's background push: told at each node's or step's end, finished at the run's end. */
export interface RunPush {
  /** A node or step ended: push what the run kept so far, in the background (one push at a time, coalesced). */
  nodeEnded(): void;
  /**
   * The run ended: its last push, awaited at most `finishWaitMs` once the remote is connected (a remote still
   * connecting is given a second); the outbox keeps the run otherwise. Never throws.
   */
  finish(): Promise<{ readonly pushed: boolean }>;
}

/** How long opening the remote may take in the background (a remote that is down fails in this long). */
const CONNECT_TIMEOUT_MS = 5000;
/** How long the run's end waits for a remote that is still connecting. */
const CONNECT_WAIT_AT_END_MS = 1000;

/** Resolves after `ms` without keeping the process alive. */
function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/**
 * Starts pushing run `runId` to the remote in the background (spec storage.md Part 2, local first): the run is
 * put in the outbox first (on disk, so a kill leaves it pending for `push`), each push copies what is new
 * ({@link copyRun}), and a push that fails is a WARNING event, once, never an error of the run: the outbox keeps
 * the run until `artifact-ingest push` gets it there.
 */
export async function startRunPush(options: RunPushOptions): Promise<RunPush> {
  const { project, runId, events } = options;
  await markPending(project, runId);
  const open =
    options.openRemote ?? (() => openRemoteStore(options.remote, { connectTimeoutMs: CONNECT_TIMEOUT_MS }));
  let remote: Promise<Project> | undefined;
  let inFlight: Promise<void> | undefined;
  let again = false;
  let failedOnce = false;
  let finished = false;

  let connected = false;
  const remoteProject = (): Promise<Project> =>
    (remote ??= open().then((store) => {
      connected = true;
      return openProject(project.dir, { store });
    }));

  const warn = (error: unknown): void => {
    if (failedOnce) return;
    failedOnce = true;
    events.write('WARNING', 'remote.push_failed', {
      message: describeError(error),
      pending: `run ${runId} stays in the outbox; 'artifact-ingest push' sends it when the remote answers`,
    });
  };

  const pushOnce = async (): Promise<void> => {
    try {
      await copyRun(project, await remoteProject(), runId, { direction: 'push', lockWaitMs: 1000 });
    } catch (error) {
      warn(error);
      throw error;
    }
  };

  const loop = async (): Promise<void> => {
    // `again` is set by nodeEnded while a push is in flight: one more push then takes what it missed.
    for (let more = true; more && !finished;) {
      again = false;
      await pushOnce();
      more = again;
    }
  };

  const start = (): void => {
    if (failedOnce) return;
    if (inFlight !== undefined) {
      again = true;
      return;
    }
    inFlight = loop()
      .catch(() => undefined)
      .finally(() => {
        inFlight = undefined;
      });
  };

  const close = async (): Promise<void> => {
    const opened = remote;
    remote = undefined;
    if (opened === undefined) return;
    await opened.then((remoteOpen) => remoteOpen.store.close()).catch(() => undefined);
  };

  return {
    nodeEnded: start,
    finish: async () => {
      finished = true;
      // A remote still connecting gets a moment (a refused connection fails at once); one that is down or does not
      // answer by then is not waited for: the outbox keeps the run.
      if (!connected && !failedOnce && remote !== undefined) {
        await Promise.race([remote.catch(() => undefined), delay(CONNECT_WAIT_AT_END_MS)]);
      }
      if (!connected || failedOnce) {
        if (!failedOnce) events.write('INFO', 'remote.push_pending', { run_id: runId });
        void close();
        return { pushed: false };
      }
      const wait = options.finishWaitMs ?? 10_000;
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => {
          resolve('timeout');
        }, wait);
        timer.unref();
      });
      const last = (async (): Promise<'done'> => {
        await inFlight;
        await pushOnce();
        await clearPending(project, runId);
        return 'done';
      })().catch(() => 'failed' as const);
      const outcome = await Promise.race([last, timedOut]);
      clearTimeout(timer);
      if (outcome !== 'done') {
        events.write('WARNING', 'remote.push_pending', {
          run_id: runId,
          reason:
            outcome === 'timeout' ? `the last push took over ${String(wait)} ms` : 'the last push failed',
        });
        void last.finally(close);
        return { pushed: false };
      }
      await close();
      return { pushed: true };
    },
  };
}
