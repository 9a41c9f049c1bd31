import { lstat, readdir, unlink } from './quick-fs.js';
import type { DirectoryHandle } from './walk/index.js';
import { TEMP_FILE_PATTERN, tempFileWriter } from './temp-file-name.js';

/** A temp file older than this was left by a writer that died: no write of one file lasts an hour. */
export const STALE_TEMP_AGE_MS = 60 * 60 * 1000;

/**
 * Removes the writer's own leftover temp files from an opened directory: only names matching
 * `TEMP_FILE_PATTERN`, only regular files (lstat, never through a symlink), only those whose writer is gone
 * (their name names a process of this host that no longer runs) or last modified before `before` (epoch ms);
 * returns how many it removed. Never throws: cleanup must not fail the write it precedes.
 */
export async function removeStaleTempFiles(directory: DirectoryHandle, before: number): Promise<number> {
  let names: string[];
  try {
    // The directory's own entry: through /proc/self/fd on Linux, so it is the directory the walk opened.
    names = await readdir(directory.entry('.'));
  } catch {
    return 0;
  }
  let removed = 0;
  for (const name of names) {
    if (!TEMP_FILE_PATTERN.test(name)) continue;
    const entry = directory.entry(name);
    try {
      const stats = await lstat(entry);
      if (!stats.isFile() || (stats.mtimeMs >= before && tempFileWriter(name) !== 'gone')) continue;
      // The lstat-walk fallback names entries by path: unlink only while the directory is still in place.
      if ((await directory.locate()) !== directory.expectedLocation) return removed;
      await unlink(entry);
      removed += 1;
    } catch {
      // Gone already (another cleaner, or its writer renamed it after all) or not ours to remove: skip it.
    }
  }
  return removed;
}
