import { randomBytes } from 'node:crypto';
import { lstat, readFile, stat } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { runDir, UnknownRunError } from '../../project/index.js';
import type { RunId } from '../../project/index.js';
import { createLockFile, isProcessAlive, releaseLockIfOurs, removeStaleLock } from '../../workspace/index.js';
import { WorkflowStateError } from './workflow-state-error.js';
import { workflowStateLockPath } from './workflow-state-paths.js';

/** Who holds a workflow's state lock: the content of `.agent/runs/<run_id>/state.lock`. */
export interface StateLockOwner {
  readonly pid: number;
  readonly hostname: string;
  readonly acquired_at: string;
  /** Tells two holders of one process apart (two calls in one server). */
  readonly token: string;
}

/** A held state lock. */
export interface StateLock {
  readonly owner: StateLockOwner;
  /** The stale holder whose lock was taken over (its process is gone), if any. */
  readonly tookOver?: StateLockOwner;
  /** Whether the lock file is still this holder's (checked just before a write, in case it was taken over). */
  isHeld(): Promise<boolean>;
  /** Removes the lock file if it is still this holder's; never throws. */
  release(): Promise<void>;
}

/** How long {@link acquireStateLock} waits for a live holder. */
export interface StateLockOptions {
  /** Give up with `state_locked` after this long (default 5 s: a holder keeps the lock for milliseconds). */
  readonly waitMs?: number;
}

const ownerSchema = z
  .object({
    pid: z.number().int().positive(),
    hostname: z.string(),
    acquired_at: z.iso.datetime(),
    token: z.string(),
  })
  .strict();

const DEFAULT_WAIT_MS = 5_000;
/** A lock file that is empty or half-written is a holder between open(2) and write(2) for this long. */
const CREATING_GRACE_MS = 2_000;
/** A lock from another host cannot be checked by pid; a read-check-write never lasts this long. */
const FOREIGN_HOST_STALE_MS = 60_000;

type Holder =
  | { readonly kind: 'missing' }
  | { readonly kind: 'owner'; readonly owner: StateLockOwner; readonly text: string; readonly ageMs: number }
  | { readonly kind: 'unreadable'; readonly text: string; readonly ageMs: number };

/**
 * Takes `.agent/runs/<run_id>/state.lock` (exclusive create), waiting while a live holder has it and taking
 * over a stale one (its process is gone); throws {@link WorkflowStateError} `state_locked` after `waitMs`.
 */
export async function acquireStateLock(
  projectDir: string,
  runId: RunId,
  options: StateLockOptions = {},
): Promise<StateLock> {
  await checkRunFolder(projectDir, runId);
  const relative = workflowStateLockPath(runId);
  const absolute = path.join(projectDir, relative);
  const owner: StateLockOwner = {
    pid: process.pid,
    hostname: hostname(),
    acquired_at: new Date().toISOString(),
    token: randomBytes(8).toString('hex'),
  };
  const text = `${JSON.stringify(owner)}\n`;
  const deadline = Date.now() + (options.waitMs ?? DEFAULT_WAIT_MS);
  let tookOver: StateLockOwner | undefined;
  let pause = 2;
  let lastHolder: Holder;

  for (;;) {
    if (await createLockFile(absolute, text, { durability: 'none' })) {
      const release = (): Promise<void> => releaseLockIfOurs(absolute, text);
      const isHeld = (): Promise<boolean> =>
        readFile(absolute, 'utf8').then(
          (current) => current === text,
          () => false,
        );
      return tookOver === undefined ? { owner, isHeld, release } : { owner, tookOver, isHeld, release };
    }
    lastHolder = await readHolder(absolute);
    if (lastHolder.kind !== 'missing' && isStale(lastHolder)) {
      if ((await removeStaleLock(absolute, lastHolder.text)) && lastHolder.kind === 'owner') {
        tookOver = lastHolder.owner;
      }
      continue;
    }
    if (Date.now() >= deadline) break;
    // Jittered backoff, so two waiters do not retry in lockstep.
    await sleep(pause + Math.random() * pause);
    pause = Math.min(pause * 2, 50);
  }
  const who =
    lastHolder.kind === 'owner'
      ? `pid ${String(lastHolder.owner.pid)} on ${lastHolder.owner.hostname} since ${lastHolder.owner.acquired_at}`
      : 'another process';
  throw new WorkflowStateError(
    'state_locked',
    `workflow run ${runId} is busy: ${relative} is held by ${who}; call workflow_status and retry`,
  );
}

/** Refuses a run folder (or a folder on the way) that is a symlink or not a directory; a missing run is unknown. */
async function checkRunFolder(projectDir: string, runId: RunId): Promise<void> {
  let current = projectDir;
  for (const component of runDir(runId).split('/')) {
    current = path.join(current, component);
    let info;
    try {
      info = await lstat(current);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new UnknownRunError(runId);
      throw error;
    }
    if (!info.isDirectory()) {
      throw new WorkflowStateError(
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
    [text, { mtimeMs }] = await Promise.all([readFile(file, 'utf8'), stat(file)]);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'missing' };
    throw error;
  }
  const ageMs = Date.now() - mtimeMs;
  try {
    return { kind: 'owner', owner: ownerSchema.parse(JSON.parse(text)), text, ageMs };
  } catch {
    return { kind: 'unreadable', text, ageMs };
  }
}

/** A holder whose process is gone (same host), or that cannot be checked and is far older than any holder. */
function isStale(holder: Exclude<Holder, { kind: 'missing' }>): boolean {
  if (holder.kind === 'unreadable') return holder.ageMs >= CREATING_GRACE_MS;
  if (holder.owner.hostname !== hostname()) return holder.ageMs >= FOREIGN_HOST_STALE_MS;
  return !isProcessAlive(holder.owner.pid);
}
