import type { LockSlot } from '../workspace/index.js';
import type { ProjectStore } from './project-store.js';

/**
 * The lock at `key` of `store` as a {@link LockSlot}, for the short locks (`acquireShortLock(storeLockSlot(store,
 * key), ...)`): the same rules as a lock file, on any store.
 */
export function storeLockSlot(store: ProjectStore, key: string): LockSlot {
  return {
    create: (text) => store.createExclusive(key, text, { durability: 'none' }),
    read: async () => {
      const [text, info] = await Promise.all([store.readText(key), store.info(key)]);
      return text === undefined || info === undefined ? undefined : { text, mtimeMs: info.modifiedMs };
    },
    removeStale: (staleText) => store.removeStale(key, staleText),
    removeIfHolds: (text) => store.removeIfHolds(key, text),
  };
}
