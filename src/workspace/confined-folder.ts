import { constants } from 'node:fs';
import type { Stats } from 'node:fs';
import { join } from 'node:path';
import type { DirectoryHandle, DirectoryWalk, RootAnchor } from './walk/index.js';
import type { WriteStep } from './confined-write-options.js';
import { errnoOf } from './errno-of.js';
import { createLockFile, releaseLockIfOurs, removeStaleLock } from './locks/index.js';
import { lstatOrMissing } from './lstat-or-missing.js';
import { open, readdir, readlink, unlink } from './quick-fs.js';
import type { QuickHandle } from './quick-fs.js';
import type { FileOpening, ReadRefusal } from './read-outcome.js';
import { withWorkspaceError, workspaceErrorFrom } from './workspace-error.js';

// O_NOFOLLOW: the last name is never a link; O_NONBLOCK: a FIFO swapped in after the lstat cannot hang the open.
const READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
// O_APPEND: every write lands at the end; O_RDWR: the last byte can be read on the same descriptor.
const APPEND_FLAGS =
  constants.O_RDWR | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** How a confined read runs. */
export interface ConfinedReadOptions {
  /**
   * Open a regular file that has more than one name. By default it is refused `hard_link`: a hard link made
   * inside the root to a file outside it would hand out the outside file's bytes.
   */
  readonly allowHardLinks?: boolean;
  /** Called after each folder the walk opens, awaited before the next step (tests plant races here). */
  readonly onStep?: (step: WriteStep) => void | Promise<void>;
  /** The entry's lstat, just taken by the caller through `ConfinedFolder.stat`: it is not taken again. */
  readonly seen?: Stats;
}

/**
 * A folder below the root, opened by the writer's walk (on Linux each component through its parent's descriptor
 * with O_NOFOLLOW): its entries are looked up by name in that very folder, never through a path resolved again.
 */
export interface ConfinedFolder {
  /** The folder below the root, `/`-separated; '' for the root itself. */
  readonly relativePath: string;
  /** lstat(2) of the entry `name` (never followed); undefined when nothing is there. */
  stat(name: string): Promise<Stats | undefined>;
  /** The text of the symlink `name`; undefined when it is gone or no longer a symlink. */
  readlink(name: string): Promise<string | undefined>;
  /** Opens the regular file `name` read-only: a symlink, folder, FIFO, device or (by default) hard link is refused. */
  openFile(name: string, options?: ConfinedReadOptions): Promise<FileOpening>;
  /** The folder's entries, sorted by name, each with what it is (a symlink is `other`, never followed). */
  list(): Promise<FolderEntry[]>;
  /** Unlinks the entry `name` when it is not a folder (a symlink itself, never its target); false when missing. */
  remove(name: string): Promise<boolean>;
  /** Creates the file `name` holding `text` unless an entry is there (O_EXCL, O_NOFOLLOW); false when one is. */
  createExclusive(
    name: string,
    text: string,
    options: { readonly durability: 'fsync' | 'none' },
  ): Promise<boolean>;
  /** Deletes the file `name` if it still holds exactly `text` (a lock that is ours); never throws. */
  removeIfHolds(name: string, text: string): Promise<void>;
  /**
   * Moves the file `name` aside and deletes it only if it still holds `staleText` (a stale lock), putting back a
   * fresh one another process made in between; true when the stale one was removed.
   */
  removeStale(name: string, staleText: string): Promise<boolean>;
  /** Opens the file `name` for appending (created when missing; a symlink, FIFO or folder refused). */
  openAppend(name: string): Promise<QuickHandle>;
  /** Releases the folder's descriptor. */
  close(): Promise<void>;
}

/** One entry of a confined folder. */
export interface FolderEntry {
  readonly name: string;
  readonly kind: 'file' | 'folder' | 'other';
}

/** What opening a folder below the root found. */
export type FolderOpening =
  { readonly kind: 'opened'; readonly folder: ConfinedFolder } | { readonly kind: 'missing' } | ReadRefusal;

/** The folder names of a path below the root, or a misuse error for an empty, `.` or `..` component. */
export function pathComponents(relativePath: string): string[] {
  if (relativePath === '') return [];
  const components = relativePath.split('/');
  for (const component of components) {
    if (component === '' || component === '.' || component === '..' || component.includes('\0')) {
      throw new Error(`confined read: ${JSON.stringify(relativePath)} is not a plain path below the root`);
    }
  }
  return components;
}

/** The walk a root uses and whether it names entries by path (the fallback), so every answer is re-checked. */
export interface ReadWalk {
  readonly walk: DirectoryWalk;
  readonly byPath: boolean;
}

/** Walks to the folder `relativeDirectory` below the root without following any symlink, creating nothing. */
export async function openConfinedFolder(
  root: RootAnchor,
  { walk, byPath }: ReadWalk,
  relativeDirectory: string,
  options: ConfinedReadOptions = {},
): Promise<FolderOpening> {
  const reached = await walk(root, pathComponents(relativeDirectory), {
    create: false,
    onStep: options.onStep,
  });
  if (reached.kind !== 'opened') return reached;
  return { kind: 'opened', folder: confinedFolder(reached.directory, byPath) };
}

/** Opens the regular file at `relativePath` below the root for reading, by the walk and then by name. */
export async function openConfinedFile(
  root: RootAnchor,
  walk: ReadWalk,
  relativePath: string,
  options: ConfinedReadOptions = {},
): Promise<FileOpening> {
  const directories = pathComponents(relativePath);
  const name = directories.pop();
  if (name === undefined) return { kind: 'refused', code: 'is_a_directory', relativePath };
  const reached = await openConfinedFolder(root, walk, directories.join('/'), options);
  if (reached.kind !== 'opened') return reached;
  try {
    return await reached.folder.openFile(name, options);
  } finally {
    await reached.folder.close();
  }
}

function confinedFolder(directory: DirectoryHandle, byPath: boolean): ConfinedFolder {
  const below = (name: string): string =>
    directory.relativePath === '' ? name : `${directory.relativePath}/${name}`;
  const shownAs = (name: string): string => join(directory.expectedLocation, name);
  // The fallback names entries by path, resolved again at each call: an answer counts only if the folder is
  // still where the walk found it. The descriptor walk looks names up in the very folder it opened.
  const answeredInPlace = async (): Promise<boolean> =>
    !byPath || (await directory.locate()) === directory.expectedLocation;
  const swapped = (name: string): ReadRefusal => ({
    kind: 'refused',
    code: 'symlink',
    relativePath: below(name),
    swapped: true,
  });
  return {
    relativePath: directory.relativePath,
    stat: async (name) => {
      const stats = await statEntry(directory.entry(name), shownAs(name));
      return stats !== undefined && (await answeredInPlace()) ? stats : undefined;
    },
    readlink: async (name) => {
      let text: string;
      try {
        text = await readlink(directory.entry(name));
      } catch (error) {
        if (['ENOENT', 'EINVAL', 'ENOTDIR'].includes(errnoOf(error) ?? '')) return undefined;
        throw workspaceErrorFrom(error, 'readlink', shownAs(name));
      }
      return (await answeredInPlace()) ? text : undefined;
    },
    openFile: async (name, options = {}) => {
      const entry = directory.entry(name);
      // Judged by lstat first, so a FIFO or a device is never opened at all.
      const seen = options.seen ?? (await statEntry(entry, shownAs(name)));
      if (seen === undefined) return { kind: 'missing' };
      if (!seen.isFile()) return { kind: 'refused', code: kindCode(seen), relativePath: below(name) };
      let handle: QuickHandle;
      try {
        handle = await open(entry, READ_FLAGS);
      } catch (error) {
        const refusal = openRefusal(errnoOf(error), below(name));
        if (refusal !== undefined) return refusal;
        throw workspaceErrorFrom(error, 'open', shownAs(name));
      }
      const opened = await checkOpened(handle, below(name), shownAs(name), options).catch(
        async (error: unknown) => {
          await handle.close();
          throw error;
        },
      );
      if (opened.kind === 'opened' && !(await answeredInPlace())) {
        await handle.close();
        return swapped(name);
      }
      if (opened.kind !== 'opened') await handle.close();
      return opened;
    },
    list: async () => {
      let entries;
      try {
        entries = await readdir(directory.entry('.'), { withFileTypes: true });
      } catch (error) {
        throw workspaceErrorFrom(error, 'scandir', directory.expectedLocation);
      }
      if (!(await answeredInPlace())) return [];
      return entries
        .map((entry): FolderEntry => {
          const kind = entry.isFile() ? 'file' : entry.isDirectory() ? 'folder' : 'other';
          return { name: entry.name, kind };
        })
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    },
    remove: async (name) => {
      if (!(await answeredInPlace())) return false;
      try {
        // unlink(2) never follows the last name: a symlink is removed, not what it points at.
        await unlink(directory.entry(name));
        return true;
      } catch (error) {
        if (errnoOf(error) === 'ENOENT') return false;
        throw workspaceErrorFrom(error, 'unlink', shownAs(name));
      }
    },
    createExclusive: async (name, text, options) => {
      if (!(await answeredInPlace())) throw workspaceErrorFrom(movedError(), 'open', shownAs(name));
      return createLockFile(directory.entry(name), text, options);
    },
    removeIfHolds: (name, text) => releaseLockIfOurs(directory.entry(name), text),
    removeStale: async (name, staleText) =>
      (await answeredInPlace()) && removeStaleLock(directory.entry(name), staleText),
    openAppend: async (name) => {
      let handle: QuickHandle;
      try {
        handle = await open(directory.entry(name), APPEND_FLAGS, 0o644);
      } catch (error) {
        throw workspaceErrorFrom(error, 'open', shownAs(name));
      }
      const stats = await handle.stat();
      if (!stats.isFile() || !(await answeredInPlace())) {
        await handle.close();
        throw workspaceErrorFrom(movedError(), 'open', shownAs(name));
      }
      return handle;
    },
    close: () => directory.close(),
  };
}

/** The error of a folder that moved while it was used: no entry of it is opened through its old name. */
function movedError(): NodeJS.ErrnoException {
  return Object.assign(new Error('the folder moved while it was used'), { code: 'ELOOP' });
}

function kindCode(stats: Stats): 'symlink' | 'is_a_directory' | 'not_a_regular_file' {
  if (stats.isSymbolicLink()) return 'symlink';
  return stats.isDirectory() ? 'is_a_directory' : 'not_a_regular_file';
}

async function statEntry(entry: string, shownAs: string): Promise<Stats | undefined> {
  try {
    return await lstatOrMissing(entry);
  } catch (error) {
    throw workspaceErrorFrom(error, 'lstat', shownAs);
  }
}

/** What the entry turned out to be when the open failed after lstat saw a regular file (it was swapped). */
function openRefusal(errno: string | undefined, relativePath: string): FileOpening | undefined {
  if (errno === 'ENOENT') return { kind: 'missing' };
  if (errno === 'ELOOP') return { kind: 'refused', code: 'symlink', relativePath };
  if (errno === 'ENXIO') return { kind: 'refused', code: 'not_a_regular_file', relativePath };
  return undefined;
}

/** fstat(2) of the opened file decides: a regular file only, and by default one with a single name. */
async function checkOpened(
  handle: QuickHandle,
  relativePath: string,
  shownAs: string,
  options: ConfinedReadOptions,
): Promise<FileOpening> {
  const stats = await withWorkspaceError('fstat', shownAs, () => handle.stat());
  if (!stats.isFile()) return { kind: 'refused', code: kindCode(stats), relativePath };
  if (stats.nlink > 1 && options.allowHardLinks !== true) {
    return { kind: 'refused', code: 'hard_link', relativePath };
  }
  return { kind: 'opened', handle, stats };
}
