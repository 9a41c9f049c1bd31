export { createLockFile, isProcessAlive, releaseLockIfOurs, removeStaleLock } from './lock-file.js';
export { acquireShortLock, lockFileSlot, readLiveShortLockOwner } from './short-lock.js';
export type { LockSlot, ShortLock, ShortLockAttempt, ShortLockOwner } from './short-lock.js';
