import { hostname } from 'node:os';
import { z } from 'zod';
import { runDir, runLockPath } from '../../../project/index.js';
import type { RunId } from '../../../project/index.js';
import { projectOf, StoreError, usingProject } from '../../../store/index.js';
import type { ProjectRef, ProjectStore } from '../../../store/index.js';
import { isProcessAlive } from '../../../workspace/index.js';
import { RunError } from '../run-error.js';

/** Who holds a run's lock: the content of `.agent/runs/<run_id>/lock`. */
export interface RunLockOwner {
  readonly pid: number;
  readonly hostname: string;
  readonly started_at: string;
}

/** A held run lock. */
export interface RunLock {
  /** Project-relative path of the lock file. */
  readonly path: string;
  readonly owner: RunLockOwner;
  /** The stale owner whose lock was taken over (its process is gone), if any. */
  readonly tookOver?: RunLockOwner;
  /** Removes the lock file if it is still this runner's; never throws. */
  release(): Promise<void>;
}

const ownerSchema = z
  .object({ pid: z.number().int().positive(), hostname: z.string(), started_at: z.string() })
  .strict();

/** A lock file that is empty or half-written is a runner between open(2) and write(2) for this long. */
const CREATING_GRACE_MS = 10_000;
const MAX_ATTEMPTS = 5;

type Holder =
  | { readonly kind: 'missing' }
  | { readonly kind: 'owner'; readonly owner: RunLockOwner; readonly text: string }
  | { readonly kind: 'unreadable'; readonly text: string; readonly ageMs: number };

/**
 * Takes `.agent/runs/<run_id>/lock` (created exclusively through the project's store, never through a symlink),
 * taking over a stale lock whose process is no longer alive on this host; throws {@link RunError} `run_locked`
 * while another live runner holds it, and `run_dir_unusable` when a symlink or a file stands where the run folder
 * goes.
 */
export async function acquireRunLock(
  project: ProjectRef,
  runId: RunId,
  now: Date = new Date(),
): Promise<RunLock> {
  const { store } = projectOf(project);
  // A store opened here for a folder path is closed with the lock.
  const done = typeof project === 'string' ? () => store.close() : () => Promise.resolve();
  const relative = runLockPath(runId);
  const owner: RunLockOwner = { pid: process.pid, hostname: hostname(), started_at: now.toISOString() };
  const text = `${JSON.stringify(owner)}\n`;
  let tookOver: RunLockOwner | undefined;

  try {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
      if (await createLock(store, runId, text)) {
        const release = (): Promise<void> => store.removeIfHolds(relative, text).finally(done);
        return tookOver === undefined
          ? { path: relative, owner, release }
          : { path: relative, owner, tookOver, release };
      }
      const holder = await readHolder(store, relative);
      if (holder.kind === 'missing') continue;
      const busy = liveHolderMessage(holder, runId, relative);
      if (busy !== null) throw new RunError('run_locked', busy);
      if ((await store.removeStale(relative, holder.text)) && holder.kind === 'owner')
        tookOver = holder.owner;
    }
    throw new RunError(
      'run_locked',
      `run ${runId} is locked: ${relative} keeps changing while another runner takes it over; try again`,
    );
  } catch (error) {
    await done();
    throw error;
  }
}

/** Creates the lock (and the run folder) through the store; a symlink or a file in the way is `run_dir_unusable`. */
async function createLock(store: ProjectStore, runId: RunId, text: string): Promise<boolean> {
  try {
    return await store.createExclusive(runLockPath(runId), text, { durability: 'fsync' });
  } catch (error) {
    if (!(error instanceof StoreError) || error.code !== 'write_refused') throw error;
    const what = error.refusal === 'symlink' ? 'a symlink' : 'not a directory';
    throw new RunError(
      'run_dir_unusable',
      `${runDir(runId)} is ${what} (or a folder on its way is): the run folder must be a real directory; ${error.message}`,
      { cause: error },
    );
  }
}

/** Whether a live runner holds the run's lock now (a missing or stale lock means no runner is active). */
export async function isRunLocked(project: ProjectRef, runId: RunId): Promise<boolean> {
  const relative = runLockPath(runId);
  const holder = await usingProject(project, ({ store }) => readHolder(store, relative)).catch(
    (): Holder => ({ kind: 'missing' }),
  );
  return liveHolderMessage(holder, runId, relative) !== null;
}

async function readHolder(store: ProjectStore, key: string): Promise<Holder> {
  const [text, info] = await Promise.all([store.readText(key), store.info(key)]);
  if (text === undefined || info === undefined) return { kind: 'missing' };
  const { modifiedMs: mtimeMs } = info;
  try {
    const owner = ownerSchema.parse(JSON.parse(text));
    return { kind: 'owner', owner, text };
  } catch {
    return { kind: 'unreadable', text, ageMs: Date.now() - mtimeMs };
  }
}

/** Why the holder counts as live, or null when its lock is stale and may be taken over. */
function liveHolderMessage(holder: Holder, runId: string, relative: string): string | null {
  if (holder.kind === 'missing') return null;
  if (holder.kind === 'unreadable') {
    return holder.ageMs < CREATING_GRACE_MS
      ? `run ${runId} is locked: ${relative} is being created by another runner; try again in a few seconds`
      : null;
  }
  const { owner } = holder;
  const since = `since ${owner.started_at}`;
  if (owner.hostname !== hostname()) {
    return (
      `run ${runId} is locked by pid ${String(owner.pid)} on host ${owner.hostname} ${since}; ` +
      `a process on another host cannot be checked: if no runner is active there, delete ${relative} and resume again`
    );
  }
  if (!isProcessAlive(owner.pid)) return null;
  return (
    `run ${runId} is already running (pid ${String(owner.pid)} ${since}, lock ${relative}); ` +
    `wait for it to finish, or stop that process and resume the run (if no runner is active, delete ${relative})`
  );
}
