import { randomBytes } from 'node:crypto';
import { readFile, stat } from '../quick-fs.js';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { errnoOf } from '../errno-of.js';
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

/**
 * Where a short lock lives: a lock file by path (`lockFileSlot`) or a key of the project store. The lock's rules
 * (exclusive create, stale takeover, release only by its holder) are written once, over these four calls.
 */
export interface LockSlot {
  /** Creates the lock holding `text` unless one exists; false when one does. */
  create(text: string): Promise<boolean>;
  /** The lock's text and when it was last written, or undefined when there is none. */
  read(): Promise<{ readonly text: string; readonly mtimeMs: number } | undefined>;
  /** Removes the lock only while it still holds `staleText`; true when it was removed. */
  removeStale(staleText: string): Promise<boolean>;
  /** Removes the lock if it still holds `text`; never throws. */
  removeIfHolds(text: string): Promise<void>;
}

/** The {@link LockSlot} of the lock file at `file` (O_EXCL create, never through a symlink at the file). */
export function lockFileSlot(file: string): LockSlot {
  return {
    create: (text) => createLockFile(file, text, { durability: 'none' }),
    read: async () => {
      try {
        const [text, { mtimeMs }] = await Promise.all([readFile(file, 'utf8'), stat(file)]);
        return { text, mtimeMs };
      } catch (error) {
        if (errnoOf(error) === 'ENOENT') return undefined;
        throw error;
      }
    },
    removeStale: (staleText) => removeStaleLock(file, staleText),
    removeIfHolds: (text) => releaseLockIfOurs(file, text),
  };
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

/**
 * The tokens of the short locks this process holds now, shared by every copy of this module in the process. A
 * lock file naming this process under a token not here is one whose release did not land (a remote's connection
 * reset mid-release): its holder is gone as surely as a dead process, so it is stale, and a long-running process
 * (an MCP server's pushes) is not locked out by its own lost release.
 */
const heldHere: Set<string> = ((globalThis as Record<symbol, unknown>)[
  Symbol.for('artifact-ingest.short-locks-held')
] ??= new Set<string>()) as Set<string>;

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
  where: string | LockSlot,
  options: { readonly waitMs: number },
): Promise<ShortLockAttempt> {
  const slot = typeof where === 'string' ? lockFileSlot(where) : where;
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
    if (await slot.create(text)) {
      heldHere.add(owner.token);
      const release = async (): Promise<void> => {
        try {
          await slot.removeIfHolds(text);
        } finally {
          heldHere.delete(owner.token);
        }
      };
      const isHeld = (): Promise<boolean> =>
        slot.read().then(
          (current) => current?.text === text,
          () => false,
        );
      const lock = tookOver === undefined ? { owner, isHeld, release } : { owner, tookOver, isHeld, release };
      return { acquired: true, lock };
    }
    lastHolder = await readHolder(slot);
    if (lastHolder.kind !== 'missing' && isStale(lastHolder)) {
      if ((await slot.removeStale(lastHolder.text)) && lastHolder.kind === 'owner') {
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
export async function readLiveShortLockOwner(where: string | LockSlot): Promise<ShortLockOwner | undefined> {
  const holder = await readHolder(typeof where === 'string' ? lockFileSlot(where) : where);
  return holder.kind === 'owner' && !isStale(holder) ? holder.owner : undefined;
}

async function readHolder(slot: LockSlot): Promise<Holder> {
  const found = await slot.read();
  if (found === undefined) return { kind: 'missing' };
  const { text } = found;
  const ageMs = Date.now() - found.mtimeMs;
  try {
    return { kind: 'owner', owner: ownerSchema.parse(JSON.parse(text)), text, ageMs };
  } catch {
    return { kind: 'unreadable', text, ageMs };
  }
}

/**
 * A holder whose process is gone (same host), this process under a lock it no longer holds (a release that did not
 * land), or one that cannot be checked and is far older than any holder.
 */
function isStale(holder: Exclude<Holder, { kind: 'missing' }>): boolean {
  if (holder.kind === 'unreadable') return holder.ageMs >= CREATING_GRACE_MS;
  if (holder.owner.hostname !== hostname()) return holder.ageMs >= FOREIGN_HOST_STALE_MS;
  if (holder.owner.pid === process.pid) return !heldHere.has(holder.owner.token);
  return !isProcessAlive(holder.owner.pid);
}
