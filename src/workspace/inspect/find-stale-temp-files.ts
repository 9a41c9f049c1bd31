import { lstat, opendir } from 'node:fs/promises';
import { join } from 'node:path';
import { AGENT_DIR, WORKSPACE_DIR } from '../../project/index.js';
import { errnoOf } from '../errno-of.js';
import { TEMP_FILE_PATTERN } from '../temp-file-name.js';

/** A writer's temp file found under workspace/ or .agent/. */
export interface FoundTempFile {
  /** Project-relative path. */
  readonly path: string;
  readonly mtime: Date;
}

/**
 * Walks `folders` (project-relative; default workspace/ and .agent/, never through a symlink) and returns every
 * regular file named like the writer's temp files (`TEMP_FILE_PATTERN`): a writer that was killed between
 * creating and renaming one.
 */
export async function findStaleTempFiles(
  projectDir: string,
  folders: readonly string[] = [WORKSPACE_DIR, AGENT_DIR],
): Promise<FoundTempFile[]> {
  const found: FoundTempFile[] = [];
  // Depth-first with an explicit stack: a deep tree costs memory for its pending folders, never call depth.
  const pending = [...folders];
  for (let relative = pending.pop(); relative !== undefined; relative = pending.pop()) {
    let directory;
    try {
      directory = await opendir(join(projectDir, relative));
    } catch (error) {
      // Gone, or a symlink or file where a folder was: nothing of the writer's below it.
      if (['ENOENT', 'ENOTDIR', 'ELOOP', 'EACCES'].includes(errnoOf(error) ?? '')) continue;
      throw error;
    }
    for await (const entry of directory) {
      const child = `${relative}/${entry.name}`;
      if (entry.isDirectory()) pending.push(child);
      else if (entry.isFile() && TEMP_FILE_PATTERN.test(entry.name)) {
        const stats = await lstat(join(projectDir, child)).catch(() => undefined);
        if (stats?.isFile() === true) found.push({ path: child, mtime: stats.mtime });
      }
    }
  }
  return found.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
