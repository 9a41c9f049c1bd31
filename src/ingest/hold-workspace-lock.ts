import { setTimeout as sleep } from 'node:timers/promises';
import { describeError, WORKSPACE_LOCK_PATH } from '../project/index.js';
import { storeLockSlot, usingProject } from '../store/index.js';
import type { ProjectRef } from '../store/index.js';
import { acquireShortLock } from '../workspace/index.js';

/** How long an ingest waits for the workspace lock: one document's writes and records take seconds, not minutes. */
export const WORKSPACE_LOCK_WAIT_MS = 120_000;

/** What {@link holdWorkspaceLock} did: ran `work` under the lock, or could not take it. */
export type HeldWork<T> =
  | { readonly outcome: 'done'; readonly value: T }
  /** A live holder kept the lock for the whole wait. */
  | { readonly outcome: 'busy'; readonly reason: string }
  /** The lock could not be made at all (`.agent/` missing and uncreatable, read-only, not a folder). */
  | { readonly outcome: 'unavailable'; readonly reason: string };

/**
 * Runs `work` while holding the project's workspace lock (`.agent/workspace.lock` in its store, one holder at a
 * time across processes and within one), so an ingest's renames into workspace/ and its records are never
 * interleaved with another ingest's; `work` is told when the lock was taken (epoch ms): a temp file older than
 * that is a dead writer's. A lock whose holder died is taken over; a live holder is waited for up to `waitMs`.
 */
export async function holdWorkspaceLock<T>(
  project: ProjectRef,
  work: (lockedAt: number) => Promise<T>,
  options: {
    readonly waitMs?: number;
    /**
     * False when `work` writes no records (a streaming ingest placing one block): the lock is let go at once,
     * without waiting for the next millisecond that keeps one holder's records before the next one's.
     */
    readonly records?: boolean;
  } = {},
): Promise<HeldWork<T>> {
  const waitMs = options.waitMs ?? WORKSPACE_LOCK_WAIT_MS;
  return usingProject<HeldWork<T>>(project, async ({ store }) => {
    let attempt;
    try {
      attempt = await acquireShortLock(storeLockSlot(store, WORKSPACE_LOCK_PATH), { waitMs });
    } catch (error) {
      return {
        outcome: 'unavailable',
        reason: `cannot take ${WORKSPACE_LOCK_PATH}: ${describeError(error)}`,
      };
    }
    if (!attempt.acquired) {
      return {
        outcome: 'busy',
        reason: `${WORKSPACE_LOCK_PATH} was held by ${attempt.holder} for the whole ${String(waitMs / 1000)} s wait; ingest again once it is done`,
      };
    }
    try {
      const value = await work(Date.now());
      // Records are ordered by their millisecond createdAt: the next holder's must fall in a later one.
      const finishedAt = Date.now();
      while (options.records !== false && Date.now() <= finishedAt) await sleep(1);
      return { outcome: 'done', value };
    } finally {
      await attempt.lock.release();
    }
  });
}
