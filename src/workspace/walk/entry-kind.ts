import { lstat } from '../quick-fs.js';
import { errnoOf } from '../errno-of.js';
import { workspaceErrorFrom } from '../workspace-error.js';

/** What a directory entry is, judged by lstat(2) so a symlink is never followed. */
export type EntryKind = 'missing' | 'symlink' | 'directory' | 'file' | 'special';

/** Classifies the entry at `entryPath` without following it or opening it; `displayPath` names it in errors. */
export async function entryKind(entryPath: string, displayPath: string): Promise<EntryKind> {
  try {
    const stats = await lstat(entryPath);
    if (stats.isSymbolicLink()) return 'symlink';
    if (stats.isDirectory()) return 'directory';
    return stats.isFile() ? 'file' : 'special';
  } catch (error) {
    if (errnoOf(error) === 'ENOENT') return 'missing';
    throw workspaceErrorFrom(error, 'lstat', displayPath);
  }
}
