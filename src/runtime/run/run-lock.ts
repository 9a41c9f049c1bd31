import { lstat, mkdir, stat } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { runDir, runLockPath } from '../../project/index.js';
import type { RunId } from '../../project/index.js';
import {
  createLockFile,
  isProcessAlive,
  readRegularFile,
  releaseLockIfOurs,
  removeStaleLock,
} from '../../workspace/index.js';
import { RunError } from './run-error.js';

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
 * Takes `.agent/runs/<run_id>/lock` (created with O_EXCL), taking over a stale lock whose process is no
 * longer alive on this host; throws {@link RunError} `run_locked` while another live runner holds it.
 */
export async function acquireRunLock(
  projectDir: string,
  runId: RunId,
  now: Date = new Date(),
): Promise<RunLock> {
  await ensureRunDir(projectDir, runDir(runId));
  const relative = runLockPath(runId);
  const absolute = path.join(projectDir, relative);
  const owner: RunLockOwner = { pid: process.pid, hostname: hostname(), started_at: now.toISOString() };
  const text = `${JSON.stringify(owner)}\n`;
  let tookOver: RunLockOwner | undefined;

  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
    if (await createLockFile(absolute, text, { durability: 'fsync' })) {
      const release = (): Promise<void> => releaseLockIfOurs(absolute, text);
      return tookOver === undefined
        ? { path: relative, owner, release }
        : { path: relative, owner, tookOver, release };
    }
    const holder = await readHolder(absolute);
    if (holder.kind === 'missing') continue;
    const busy = liveHolderMessage(holder, runId, relative);
    if (busy !== null) throw new RunError('run_locked', busy);
    if ((await removeStaleLock(absolute, holder.text)) && holder.kind === 'owner') tookOver = holder.owner;
  }
  throw new RunError(
    'run_locked',
    `run ${runId} is locked: ${relative} keeps changing while another runner takes it over; try again`,
  );
}

/** Whether a live runner holds the run's lock now (a missing or stale lock means no runner is active). */
export async function isRunLocked(projectDir: string, runId: RunId): Promise<boolean> {
  const relative = runLockPath(runId);
  const holder = await readHolder(path.join(projectDir, relative)).catch((): Holder => ({ kind: 'missing' }));
  return liveHolderMessage(holder, runId, relative) !== null;
}

/** Creates the run folder component by component, refusing a symlink anywhere under the project. */
async function ensureRunDir(projectDir: string, folder: string): Promise<void> {
  let current = projectDir;
  for (const component of folder.split('/')) {
    current = path.join(current, component);
    try {
      await mkdir(current);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const info = await lstat(current);
    if (!info.isDirectory()) {
      throw new RunError(
        'run_dir_unusable',
        `${path.relative(projectDir, current)} is ${info.isSymbolicLink() ? 'a symlink' : 'not a directory'}; the run folder must be a real directory`,
      );
    }
  }
}

async function readHolder(file: string): Promise<Holder> {
  let text: string;
  let mtimeMs: number;
  try {
    [text, { mtimeMs }] = await Promise.all([readRegularFile(file, 'utf8'), stat(file)]);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'missing' };
    throw error;
  }
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
