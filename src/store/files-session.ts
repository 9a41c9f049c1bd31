import { join } from 'node:path';
import { AGENT_DIR } from '../project/index.js';
import { lstatOrMissing, openConfinedRoot } from '../workspace/index.js';
import type { ConfinedFolder, ConfinedRoot } from '../workspace/index.js';
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
  /** Folders one level below it opened for reads (the path index's `<2 hex>` folders), by name. */
  readonly below: Map<string, Promise<ConfinedFolder | undefined>>;
}

/** Folders one level below a kept folder that a session keeps open for reads: the path index has 256. */
const FOLDERS_BELOW = 256;

/**
 * A session of the files store (`ProjectStore.openSession`): the calls that name a key reach it through a confined
 * root of its folder cut to two levels below `.agent` (`.agent/runs/<run_id>`, `.agent/index/paths`,
 * `.agent/index/history`, `.agent/index`), opened by the first read or write below it (a write makes it through the
 * project's root first; either way it must be the real folder at its place, no symlink on the way) and kept
 * until `close`: a call walks one folder level or none, not the
 * whole `.agent/...` path. A call through a kept folder that throws lets the folder go (it may have been removed
 * or moved); a read that finds nothing there looks again from the project when the folder is no longer in place.
 */
export function openFilesSession(
  projectDir: string,
  base: ProjectStore,
  baseRoot: () => Promise<ConfinedRoot>,
): ProjectStore {
  const kept = new Map<string, Promise<KeptFolder>>();

  /** The kept folder `folder`, opened now when it is not yet: made first for a write, found as it is for a read. */
  const open = (folder: string, key: string, reach: Reach): Promise<KeptFolder> => {
    const known = kept.get(folder);
    if (known !== undefined) return known;
    const opening = (async (): Promise<KeptFolder> => {
      const project = await baseRoot();
      if (reach === 'write') {
        const made = await project.makeDirectory(folder);
        if (made.status === 'refused') throw refused(key, made.message);
      }
      // A folder that is missing, or not a real folder of the project, is refused here, and a read then walks.
      const root = await openConfinedRoot(join(project.realPath, folder));
      try {
        const identity = await lstatOrMissing(root.realPath);
        // Swapped for a symlink between the two calls: the root would lie outside the project.
        if (root.realPath !== join(project.realPath, folder) || identity?.isDirectory() !== true) {
          throw refused(key, `${folder} is no longer a folder of the project`);
        }
        return { root, dev: identity.dev, ino: identity.ino, below: new Map() };
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
    await release(await opening);
  };

  const release = async ({ root, below }: KeptFolder): Promise<void> => {
    const folders = await Promise.allSettled(below.values());
    below.clear();
    await Promise.all(
      folders.map((folder) =>
        folder.status === 'fulfilled' && folder.value !== undefined
          ? folder.value.close()
          : Promise.resolve(),
      ),
    );
    await root.close();
  };

  /**
   * The folder one level below a kept folder that holds `below` (`ab` of `ab/<62 hex>.jsonl`), opened for reads
   * and kept with it: a read then opens the file in it with no walk. Undefined when `below` is not one level down,
   * or the folder is not there to keep.
   */
  const folderBelow = (keptFolder: KeptFolder, below: string): Promise<ConfinedFolder | undefined> => {
    const slash = below.indexOf('/');
    if (slash === -1 || below.includes('/', slash + 1)) return Promise.resolve(undefined);
    const name = below.slice(0, slash);
    const known = keptFolder.below.get(name);
    if (known !== undefined) return known;
    if (keptFolder.below.size >= FOLDERS_BELOW) return Promise.resolve(undefined);
    const opening = keptFolder.root
      .openFolder(name)
      .then((opened) => (opened.kind === 'opened' ? opened.folder : undefined));
    // A folder not there yet (or refused) is looked for again by the next read.
    void opening.then(
      (folder) => {
        if (folder === undefined) keptFolder.below.delete(name);
      },
      () => keptFolder.below.delete(name),
    );
    keptFolder.below.set(name, opening);
    return opening;
  };

  /** Lets go of the folder `name` below `keptFolder` if it was removed or moved since it was kept (two lstats). */
  const belowGone = async (keptFolder: KeptFolder, name: string): Promise<boolean> => {
    const opening = keptFolder.below.get(name);
    const held = await (await opening)?.stat('.');
    const now = await lstatOrMissing(join(keptFolder.root.realPath, name)).catch(() => undefined);
    if (now?.isDirectory() === true && now.dev === held?.dev && now.ino === held.ino) return false;
    if (keptFolder.below.get(name) === opening) keptFolder.below.delete(name);
    await (await opening)?.close();
    return true;
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
      folder === undefined ? undefined : reach === 'update' ? kept.get(folder) : open(folder, key, reach);
    if (folder === undefined || opening === undefined) return use(await fromProject(key));
    let keptFolder: KeptFolder;
    try {
      keptFolder = await opening;
    } catch (error) {
      if (reach === 'write') throw error;
      return use(await fromProject(key));
    }
    const below = key.slice(folder.length + 1);
    let answer: T;
    try {
      const folderOfKey = reach === 'read' ? await folderBelow(keptFolder, below) : undefined;
      const placement = { root: keptFolder.root, at: folder, below };
      answer = await use(folderOfKey === undefined ? placement : { ...placement, folder: folderOfKey });
      if (
        answer === undefined &&
        folderOfKey !== undefined &&
        (await belowGone(keptFolder, below.slice(0, below.indexOf('/'))))
      ) {
        // Nothing there, in a folder below that was removed or moved since it was kept: the walk finds what is.
        answer = await use(placement);
      }
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
    createFolder: (folder, fill) => base.createFolder(folder, fill),
    openSession: () => base.openSession(),
    openObjects: (options) => base.openObjects(options),
    close: async () => {
      const openings = [...kept.values()];
      kept.clear();
      const folders = await Promise.allSettled(openings);
      await Promise.all(
        folders.map((folder) => (folder.status === 'fulfilled' ? release(folder.value) : Promise.resolve())),
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
