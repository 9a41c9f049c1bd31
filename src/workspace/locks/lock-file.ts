import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { link, open, readFile, rename, unlink } from '../quick-fs.js';
import { errnoOf } from '../errno-of.js';

// The primitives of the lock files a run and a workflow's state take (exclusive create, stale takeover):
// one implementation, so the two locks judge and remove stale holders the same way.

/**
 * Creates the lock file holding `text` if no lock exists (O_EXCL, never through a symlink); false when one
 * does. A lock whose text could not be written is removed again. `fsync` makes the holder durable.
 */
export async function createLockFile(
  file: string,
  text: string,
  options: { readonly durability: 'fsync' | 'none' },
): Promise<boolean> {
  let handle;
  try {
    handle = await open(
      file,
      constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY | constants.O_NOFOLLOW,
      0o644,
    );
  } catch (error) {
    if (errnoOf(error) === 'EEXIST') return false;
    throw error;
  }
  try {
    await handle.writeFile(text);
    if (options.durability === 'fsync') await handle.sync();
  } catch (error) {
    await handle.close();
    await unlink(file).catch(() => undefined);
    throw error;
  }
  await handle.close();
  return true;
}

/** Whether a process with this pid exists on this host (one that belongs to another user counts). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return errnoOf(error) === 'EPERM';
  }
}

/**
 * Moves a lock judged stale aside and deletes it only if it is still the lock that was judged (its text is
 * `staleText`); a fresh lock another process created in between is put back (link(2) never replaces a
 * newer one). True when the stale lock was removed.
 */
export async function removeStaleLock(file: string, staleText: string): Promise<boolean> {
  const aside = `${file}.stale-${String(process.pid)}-${randomBytes(4).toString('hex')}`;
  try {
    await rename(file, aside);
  } catch (error) {
    if (errnoOf(error) === 'ENOENT') return false;
    throw error;
  }
  const movedText = await readFile(aside, 'utf8');
  if (movedText !== staleText) {
    await link(aside, file).catch(() => undefined);
    await unlink(aside);
    return false;
  }
  await unlink(aside);
  return true;
}

/** Deletes the lock file if it still holds `text` (ours); a lock already gone or replaced is left alone. */
export async function releaseLockIfOurs(file: string, text: string): Promise<void> {
  try {
    if ((await readFile(file, 'utf8')) === text) await unlink(file);
  } catch {
    // Already gone or unreadable: a later holder judges it stale by its pid.
  }
}
