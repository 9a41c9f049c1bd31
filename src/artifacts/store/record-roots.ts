import { join } from 'node:path';
import { PATH_INDEX_DIR, RUNS_DIR } from '../../project/index.js';
import { openConfinedRoot } from '../../workspace/index.js';
import type { ConfinedRoot } from '../../workspace/index.js';

/**
 * The confined roots a recorder keeps open for its appends: the project's, the path index folder's and each run
 * folder's, so an append walks one folder level (or none), not the whole `.agent/...` path each time.
 */
export interface RecordRoots {
  /** The project's confined root, for writes that need more than an append (the history journal's). */
  readonly project: ConfinedRoot;
  /** Appends whole lines to a project-relative records file through the deepest root kept for its folder. */
  append(relative: string, text: string, durability: 'fsync' | 'none'): Promise<void>;
  /** Waits for appends in flight and releases every root. */
  close(): Promise<void>;
}

/** Opens the project's confined root (creating the project folder when missing); deeper roots open on first use. */
export async function openRecordRoots(projectDir: string): Promise<RecordRoots> {
  const project = await openConfinedRoot(projectDir, { create: true });
  const deeper = new Map<string, Promise<ConfinedRoot>>();

  /** The root of `folder` (project-relative), made through the project root, so no symlink on the way is followed. */
  const rootOf = (folder: string): Promise<ConfinedRoot> => {
    const known = deeper.get(folder);
    if (known !== undefined) return known;
    const opening = (async () => {
      const made = await project.makeDirectory(folder);
      if (made.status === 'refused') throw new Error(`cannot append below ${folder}: ${made.message}`);
      const root = await openConfinedRoot(join(project.realPath, folder));
      // Swapped for a symlink between the two calls: the root would lie outside the project.
      if (root.realPath !== join(project.realPath, folder)) {
        await root.close();
        throw new Error(`cannot append below ${folder}: it is no longer a folder of the project`);
      }
      return root;
    })();
    // A failed open is tried again by the next append.
    opening.catch(() => deeper.delete(folder));
    deeper.set(folder, opening);
    return opening;
  };

  /** The deepest kept folder of `relative` and the path below it. */
  const placeOf = (relative: string): { readonly folder: string; readonly below: string } => {
    if (relative.startsWith(`${PATH_INDEX_DIR}/`)) {
      return { folder: PATH_INDEX_DIR, below: relative.slice(PATH_INDEX_DIR.length + 1) };
    }
    if (relative.startsWith(`${RUNS_DIR}/`)) {
      const [run = '', ...rest] = relative.slice(RUNS_DIR.length + 1).split('/');
      if (run !== '' && rest.length > 0) return { folder: `${RUNS_DIR}/${run}`, below: rest.join('/') };
    }
    return { folder: '', below: relative };
  };

  return {
    project,
    append: async (relative, text, durability) => {
      const { folder, below } = placeOf(relative);
      const root = folder === '' ? project : await rootOf(folder);
      try {
        const outcome = await root.appendLines(below, text, { durability });
        if (outcome.status === 'refused') throw new Error(`cannot append to ${relative}: ${outcome.message}`);
      } catch (error) {
        // The folder may have been removed or moved since it was opened: the next append opens it afresh.
        if (folder !== '' && deeper.delete(folder)) await root.close();
        throw error;
      }
    },
    close: async () => {
      const roots = await Promise.allSettled(deeper.values());
      deeper.clear();
      await Promise.all(
        roots.map((root) => (root.status === 'fulfilled' ? root.value.close() : Promise.resolve())),
      );
      await project.close();
    },
  };
}
