import { readlinkSync } from 'node:fs';
import { realpath, stat } from './quick-fs.js';
import type { QuickHandle } from './quick-fs.js';

/**
 * Whether `handle` is the file at `realPath` now. Linux: the kernel's own path of the descriptor
 * (/proc/self/fd), so a folder on the way swapped for a symlink between a resolver and the open is seen.
 * Elsewhere: realpath still gives the same path and it is the same inode, which narrows the race but does not
 * close it (docs/security.md, the writer's fallback).
 */
export async function isOpenedAt(handle: QuickHandle, realPath: string): Promise<boolean> {
  if (process.platform === 'linux') {
    try {
      // Synchronous, as the writer's own check: procfs answers from the dentry cache.
      return readlinkSync(`/proc/self/fd/${String(handle.fd)}`) === realPath;
    } catch {
      // No /proc: the portable check below.
    }
  }
  try {
    const [opened, now, resolved] = await Promise.all([handle.stat(), stat(realPath), realpath(realPath)]);
    return resolved === realPath && opened.dev === now.dev && opened.ino === now.ino;
  } catch {
    return false;
  }
}
