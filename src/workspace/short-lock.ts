import { randomBytes } from 'node:crypto';
import { readFile, stat } from './quick-fs.js';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { errnoOf } from './errno-of.js';
import { createLockFile, isProcessAlive, releaseLockIfOurs, removeStaleLock } from './lock-file.js';

/** Who holds a short lock: the JSON content of its lock file. */
export interface ShortLockOwner {
  readonly pid: number;
  readonly hostname: string;
  readonly acquired_at: string;
  /** Tells two holders of one process apart (two calls in one server). */
  readonly token: string;
}

/** A held short lock. */
export interface ShortLock {
  readonly owner: ShortLockOwner;
  /** The stale holder whose lock was taken over (its process is gone), if any. */
  readonly tookOver?: ShortLockOwner;
  /** Whether the lock file is still this holder's (checked just before a write, in case it was taken over). */
  isHeld(): Promise<boolean>;
  /** Removes the lock file if it is still this holder's; never throws. */
  release(): Promise<void>;
}

/** A short lock taken, or who kept it for the whole wait. */
export type ShortLockAttempt =
  | { readonly acquired: true; readonly lock: ShortLock }
  | { readonly acquired: false; readonly holder: string };

const ownerSchema = z
  .object({
    pid: z.number().int().positive(),
    hostname: z.string(),
    acquired_at: z.iso.datetime(),
    token: z.string(),
  })
  .strict();

/** A lock file that is empty or half-written is a holder between open(2) and write(2) for this long. */
const CREATING_GRACE_MS = 2_000;
/** A lock from another host cannot be checked by pid; a read-check-write never lasts this long. */
const FOREIGN_HOST_STALE_MS = 60_000;

type Holder =
  | { readonly kind: 'missing' }
  | { readonly kind: 'owner'; readonly owner: ShortLockOwner; readonly text: string; readonly ageMs: number }
  | { readonly kind: 'unreadable'; readonly text: string; readonly ageMs: number };

/**
 * Takes a lock held for milliseconds (a read-check-write of one file): exclusive create of `file`, waiting
 * with jittered backoff while a live holder has it, taking over a stale one (its process is gone), for at most
 * `waitMs`. The workflow state lock and the contract submission lock are this one.
 */
export async function acquireShortLock(
  file: string,
  options: { readonly waitMs: number },
): Promise<ShortLockAttempt> {
  const owner: ShortLockOwner = {
    pid: process.pid,
    hostname: hostname(),
    acquired_at: new Date().toISOString(),
    token: randomBytes(8).toString('hex'),
  };
  const text = `${JSON.stringify(owner)}\n`;
  const deadline = Date.now() + options.waitMs;
  let tookOver: ShortLockOwner | undefined;
  let pause = 2;
  let lastHolder: Holder;

  for (;;) {
    if (await createLockFile(file, text, { durability: 'none' })) {
      const release = (): Promise<void> => releaseLockIfOurs(file, text);
      const isHeld = (): Promise<boolean> =>
        readFile(file, 'utf8').then(
          (current) => current === text,
          () => false,
        );
      const lock = tookOver === undefined ? { owner, isHeld, release } : { owner, tookOver, isHeld, release };
      return { acquired: true, lock };
    }
    lastHolder = await readHolder(file);
    if (lastHolder.kind !== 'missing' && isStale(lastHolder)) {
      if ((await removeStaleLock(file, lastHolder.text)) && lastHolder.kind === 'owner') {
        tookOver = lastHolder.owner;
      }
      continue;
    }
    if (Date.now() >= deadline) break;
    // Jittered backoff, so two waiters do not retry in lockstep.
    await sleep(pause + Math.random() * pause);
    pause = Math.min(pause * 2, 50);
  }
  const holder =
    lastHolder.kind === 'owner'
      ? `pid ${String(lastHolder.owner.pid)} on ${lastHolder.owner.hostname} since ${lastHolder.owner.acquired_at}`
      : 'another process';
  return { acquired: false, holder };
}

/**
 * The owner of the short lock at `file` while a live process holds it (same host, process alive), else
 * undefined (no lock, a stale or unreadable one): what a reader uses to tell work in progress from work a kill
 * interrupted.
 */
export async function readLiveShortLockOwner(file: string): Promise<ShortLockOwner | undefined> {
  const holder = await readHolder(file);
  return holder.kind === 'owner' && !isStale(holder) ? holder.owner : undefined;
}

async function readHolder(file: string): Promise<Holder> {
  let text: string;
  let mtimeMs: number;
  try {
    [text, { mtimeMs }] = await Promise.all([readFile(file, 'utf8'), stat(file)]);
  } catch (error) {
    if (errnoOf(error) === 'ENOENT') return { kind: 'missing' };
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
