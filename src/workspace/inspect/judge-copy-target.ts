import { lstat, readdir, realpath } from 'node:fs/promises';
import path from 'node:path';
import { errnoOf } from '../errno-of.js';

/** Why a folder may not take a copy: it is in the project's guarded folders (or is the project), or holds entries. */
export type CopyTargetVerdict =
  | { readonly code: 'inside_project'; readonly projectRoot: boolean }
  | { readonly code: 'not_a_directory' }
  | { readonly code: 'not_empty'; readonly entries: number };

/**
 * Judges `to` as the folder a copy of project files is written into (a checkout): refused when it is the project
 * folder itself or lies inside one of its folders `guarded` (by its own path or where it leads, links resolved),
 * when it is not a directory, or when it holds entries; undefined when it is missing or empty.
 */
export async function judgeCopyTarget(
  projectDir: string,
  to: string,
  guarded: readonly string[],
): Promise<CopyTargetVerdict | undefined> {
  const target = await resolveThroughLinks(to);
  const project = await realpath(projectDir);
  const guardedPaths: string[] = [];
  // Both the folder's own path and where it leads, so a symlinked workspace/ is guarded too.
  for (const name of guarded)
    guardedPaths.push(path.join(project, name), await resolveThroughLinks(path.join(project, name)));
  const inside = (parent: string): boolean => {
    const relative = path.relative(parent, target);
    return (
      relative === '' ||
      (relative !== '..' && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative))
    );
  };
  if (target === project || guardedPaths.some(inside))
    return { code: 'inside_project', projectRoot: target === project };
  let entries: string[];
  try {
    const info = await lstat(target);
    if (!info.isDirectory()) return { code: 'not_a_directory' };
    entries = await readdir(target);
  } catch (error) {
    if (errnoOf(error) === 'ENOENT') return undefined;
    throw error;
  }
  return entries.length > 0 ? { code: 'not_empty', entries: entries.length } : undefined;
}

/** The real path of `target`, resolving symlinks in its longest existing prefix (the rest does not exist yet). */
async function resolveThroughLinks(target: string): Promise<string> {
  const missing: string[] = [];
  let existing = target;
  for (;;) {
    try {
      return path.join(await realpath(existing), ...missing.reverse());
    } catch (error) {
      const parent = path.dirname(existing);
      if (errnoOf(error) !== 'ENOENT' || parent === existing) throw error;
      missing.push(path.basename(existing));
      existing = parent;
    }
  }
}
