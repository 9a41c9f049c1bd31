import { constants, readlinkSync } from 'node:fs';
import { CONFIG_READ_FLAGS, readOpenedConfigText } from '../../config/index.js';
import { quickFs } from '../../workspace/index.js';
import type { QuickHandle } from '../../workspace/index.js';
import type { ProjectWorkflowFile } from './resolve-workflow-reference.js';

// O_NOFOLLOW: the real path has no symlink as its last component; one planted there since is refused (ELOOP).
const WORKFLOW_READ_FLAGS = CONFIG_READ_FLAGS | constants.O_NOFOLLOW;

/**
 * Reads a workflow file the resolver found inside the project, as the config reader does (O_NONBLOCK, fstat
 * before any read, at most 1 MiB, UTF-8), after checking that the descriptor it opened is the file at
 * `realPath`: undefined when the file is gone or something was swapped onto its path since it was resolved
 * (the caller refuses it as it refuses anything outside the project). Problems of the file itself are the
 * config reader's `ConfigError`s, naming `shownAs`.
 */
export async function readProjectWorkflow(file: ProjectWorkflowFile): Promise<string | undefined> {
  let handle: QuickHandle;
  try {
    // The small calls on the calling thread, as the writer's (D81).
    handle = await quickFs.open(file.realPath, WORKFLOW_READ_FLAGS);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'ELOOP') return undefined;
    throw error;
  }
  try {
    if (!(await isOpenedAt(handle, file.realPath))) return undefined;
    return await readOpenedConfigText(handle, file.shownAs);
  } finally {
    await handle.close();
  }
}

/**
 * Whether `handle` is the file at `realPath` now. Linux: the kernel's own path of the descriptor
 * (/proc/self/fd), so a folder on the way swapped for a symlink between the resolver and the open is seen.
 * Elsewhere: realpath still gives the same path and it is the same inode, which narrows the race but does not
 * close it (docs/security.md, the writer's fallback).
 */
async function isOpenedAt(handle: QuickHandle, realPath: string): Promise<boolean> {
  if (process.platform === 'linux') {
    try {
      // Synchronous, as the writer's own check: procfs answers from the dentry cache.
      return readlinkSync(`/proc/self/fd/${String(handle.fd)}`) === realPath;
    } catch {
      // No /proc: the portable check below.
    }
  }
  try {
    const [opened, now, resolved] = await Promise.all([
      handle.stat(),
      quickFs.stat(realPath),
      quickFs.realpath(realPath),
    ]);
    return resolved === realPath && opened.dev === now.dev && opened.ino === now.ino;
  } catch {
    return false;
  }
}
