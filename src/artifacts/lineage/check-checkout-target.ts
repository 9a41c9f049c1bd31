import { lstat, readdir, realpath } from 'node:fs/promises';
import path from 'node:path';
import { AGENT_DIR, WORKSPACE_DIR } from '../../project/index.js';
import { errnoOf } from '../../workspace/index.js';
import { LineageError } from './lineage-error.js';

/** Refuses a target inside the project's workspace/ or .agent/ (or the project root), or one that is not empty. */
export async function checkCheckoutTarget(projectDir: string, to: string): Promise<void> {
  const target = await resolveThroughLinks(to);
  const project = await realpath(projectDir);
  const guarded: string[] = [];
  // Both the folder's own path and where it leads, so a symlinked workspace/ is guarded too.
  for (const name of [WORKSPACE_DIR, AGENT_DIR])
    guarded.push(path.join(project, name), await resolveThroughLinks(path.join(project, name)));
  const inside = (parent: string): boolean => {
    const relative = path.relative(parent, target);
    return (
      relative === '' ||
      (relative !== '..' && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative))
    );
  };
  if (target === project || guarded.some(inside)) {
    throw new LineageError({
      code: 'target_inside_project',
      message: `checkout target ${to} is ${target === project ? 'the project root' : `inside the project's ${WORKSPACE_DIR}/ or ${AGENT_DIR}/`}; checkout never writes there, pick a folder outside them`,
    });
  }
  let entries: string[];
  try {
    const info = await lstat(target);
    if (!info.isDirectory()) throw notEmpty(to, 'is not a directory');
    entries = await readdir(target);
  } catch (error) {
    if (errnoOf(error) === 'ENOENT') return;
    throw error;
  }
  if (entries.length > 0) throw notEmpty(to, `holds ${entries.length} entries`);
}

function notEmpty(to: string, detail: string): LineageError {
  return new LineageError({
    code: 'target_not_empty',
    message: `checkout target ${to} ${detail}; check out into a new or empty folder`,
  });
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
