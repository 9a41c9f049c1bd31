import { join } from 'node:path';
import { AGENT_DIR } from '../project/index.js';
import { lstatOrMissing, openConfinedRoot } from '../workspace/index.js';
import type { ConfinedRoot } from '../workspace/index.js';
import { confinedStoreCalls, writeRefused } from './confined-store-calls.js';
import type { Placement, Reach, Within } from './confined-store-calls.js';
import type { ProjectStore } from './project-store.js';
import type { StoreError } from './store-error.js';
import { storeKeyComponents } from './store-key.js';

/** A folder a session keeps open: its confined root, and which folder it was when opened. */
interface KeptFolder {
  readonly root: ConfinedRoot;
  readonly dev: number;
  readonly ino: number;
}

/**
 * A session of the files store (`ProjectStore.openSession`): the calls that name a key reach it through a confined
 * root of its folder cut to two levels below `.agent` (`.agent/runs/<run_id>`, `.agent/index/paths`,
 * `.agent/index/history`, `.agent/index`), opened by the first write below it (made through the project's root,
 * so no symlink on the way is followed) and kept until `close`: a call walks one folder level or none, not the
 * whole `.agent/...` path. A call through a kept folder that throws lets the folder go (it may have been removed
 * or moved); a read that finds nothing there looks again from the project when the folder is no longer in place.
 */
export function openFilesSession(
  projectDir: string,
  base: ProjectStore,
  baseRoot: () => Promise<ConfinedRoot>,
): ProjectStore {
  const kept = new Map<string, Promise<KeptFolder>>();

  const open = (folder: string, key: string): Promise<KeptFolder> => {
    const known = kept.get(folder);
    if (known !== undefined) return known;
    const opening = (async (): Promise<KeptFolder> => {
      const project = await baseRoot();
      const made = await project.makeDirectory(folder);
      if (made.status === 'refused') throw refused(key, made.message);
      const root = await openConfinedRoot(join(project.realPath, folder));
      try {
        const identity = await lstatOrMissing(root.realPath);
        // Swapped for a symlink between the two calls: the root would lie outside the project.
        if (root.realPath !== join(project.realPath, folder) || identity?.isDirectory() !== true) {
          throw refused(key, `${folder} is no longer a folder of the project`);
        }
        return { root, dev: identity.dev, ino: identity.ino };
      } catch (error) {
        await root.close();
        throw error;
      }
    })();
    // A failed open is tried again by the next call.
    opening.catch(() => {
      if (kept.get(folder) === opening) kept.delete(folder);
    });
    kept.set(folder, opening);
    return opening;
  };

  const drop = async (folder: string, opening: Promise<KeptFolder>): Promise<void> => {
    if (kept.get(folder) !== opening) return;
    kept.delete(folder);
    await (await opening).root.close();
  };

  /** Whether the kept folder is still the folder at its place in the project (one lstat). */
  const inPlace = async (folder: string, { dev, ino }: KeptFolder): Promise<boolean> => {
    const now = await lstatOrMissing(join((await baseRoot()).realPath, folder)).catch(() => undefined);
    return now?.isDirectory() === true && now.dev === dev && now.ino === ino;
  };

  const refused = (key: string, message: string): StoreError => writeRefused(projectDir, key, message);

  const fromProject = async (key: string): Promise<Placement> => ({
    root: await baseRoot(),
    at: '',
    below: key,
  });

  const within: Within = async <T>(
    key: string,
    reach: Reach,
    use: (placement: Placement) => Promise<T>,
  ): Promise<T> => {
    const folder = keptFolderOf(key);
    const opening =
      folder === undefined ? undefined : reach === 'write' ? open(folder, key) : kept.get(folder);
    if (folder === undefined || opening === undefined) return use(await fromProject(key));
    let keptFolder: KeptFolder;
    try {
      keptFolder = await opening;
    } catch (error) {
      if (reach === 'write') throw error;
      return use(await fromProject(key));
    }
    let answer: T;
    try {
      answer = await use({ root: keptFolder.root, at: folder, below: key.slice(folder.length + 1) });
    } catch (error) {
      await drop(folder, opening);
      throw error;
    }
    if (answer !== undefined || reach !== 'read' || (await inPlace(folder, keptFolder))) return answer;
    await drop(folder, opening);
    return use(await fromProject(key));
  };

  return {
    kind: base.kind,
    location: base.location,
    ...confinedStoreCalls(projectDir, within),
    list: (folder) => base.list(folder),
    replaceFolder: (folder, fill) => base.replaceFolder(folder, fill),
    openSession: () => base.openSession(),
    openObjects: (options) => base.openObjects(options),
    close: async () => {
      const openings = [...kept.values()];
      kept.clear();
      const folders = await Promise.allSettled(openings);
      await Promise.all(
        folders.map((folder) =>
          folder.status === 'fulfilled' ? folder.value.root.close() : Promise.resolve(),
        ),
      );
    },
  };
}

/**
 * The folder a session keeps for `key`: its folder cut to two levels below `.agent` (`.agent/index/paths` for
 * `.agent/index/paths/ab/<62 hex>.jsonl`), or undefined for a key directly in `.agent`.
 */
function keptFolderOf(key: string): string | undefined {
  const components = storeKeyComponents(key);
  if (components.length < 2) return undefined;
  return [AGENT_DIR, ...components.slice(0, Math.min(2, components.length - 1))].join('/');
}
