import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { rm } from 'node:fs/promises';
import { mkdir, open, readdir, rename, unlink } from './quick-fs.js';
import { join } from 'node:path';
import type { ConfinedRoot, PublishOutcome, StagingFolder } from './confined-root-types.js';
import type { DirectoryHandle, DirectoryWalk, RootAnchor } from './walk/index.js';
import { entryKind } from './walk/index.js';
import { errnoOf } from './errno-of.js';
import { filesystemRefusal } from './filesystem-refusal.js';
import { checkDeclaredPath } from './paths/index.js';
import { WorkspaceError, withWorkspaceError, workspaceErrorFrom } from './workspace-error.js';
import type { WriteRefusal } from './write-outcome.js';

// O_NOFOLLOW: the staging folder just made is opened as itself, never through a symlink planted in its place.
const DIRECTORY_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;

/** Creates a fresh staging folder beside `targetDirectory` (below the root) and opens it as a confined root. */
export async function openStagingFolder(
  root: RootAnchor,
  walk: DirectoryWalk,
  targetDirectory: string,
  rootAt: (anchor: RootAnchor) => ConfinedRoot,
): Promise<StagingFolder | WriteRefusal> {
  const verdict = checkDeclaredPath(targetDirectory);
  if (!verdict.ok) return { status: 'refused', code: verdict.code, message: verdict.message };
  const parents = verdict.path.split('/');
  const targetName = parents.pop() ?? verdict.path;
  const reached = await walk(root, parents, { create: true, onStep: undefined });
  if (reached.kind === 'refused') return filesystemRefusal(reached.code, reached.relativePath);
  if (reached.kind === 'missing') {
    throw new WorkspaceError({ code: 'ENOENT', syscall: 'open', path: verdict.path });
  }
  const parent = reached.directory;
  const stagingName = `.${targetName}.staging-${randomBytes(8).toString('hex')}`;
  const stagingShown = join(parent.expectedLocation, stagingName);
  let anchor: RootAnchor;
  try {
    await withWorkspaceError('mkdir', stagingShown, () => mkdir(parent.entry(stagingName), 0o755));
    const handle = await withWorkspaceError('open', stagingShown, () =>
      open(parent.entry(stagingName), DIRECTORY_FLAGS),
    );
    anchor = { realPath: stagingShown, handle };
  } catch (error) {
    await parent.close();
    throw error;
  }
  const files = rootAt(anchor);
  let finished = false;

  const discard = async (): Promise<void> => {
    if (finished) return;
    finished = true;
    await files.close();
    try {
      await rm(parent.entry(stagingName), { recursive: true, force: true });
    } finally {
      await parent.close();
    }
  };

  const publishFolder = async (durable: boolean): Promise<PublishOutcome> => {
    const staged = await listRegularFiles(anchor, walk, []);
    const shownAs = join(parent.expectedLocation, targetName);
    if ((await entryKind(parent.entry(targetName), shownAs)) !== 'missing')
      return { status: 'exists', path: verdict.path };
    try {
      await rename(parent.entry(stagingName), parent.entry(targetName));
    } catch (error) {
      // Something took the name since the check: a non-empty folder or a file is never replaced.
      if (['EEXIST', 'ENOTEMPTY', 'ENOTDIR', 'EISDIR'].includes(errnoOf(error) ?? '')) {
        return { status: 'exists', path: verdict.path };
      }
      throw workspaceErrorFrom(error, 'rename', join(parent.expectedLocation, targetName));
    }
    if (durable) await parent.sync();
    return { status: 'published', path: verdict.path, files: staged.length, removed: 0 };
  };

  const publishFiles = async (durable: boolean): Promise<PublishOutcome> => {
    const staged = await listRegularFiles(anchor, walk, []);
    const target = [...parents, targetName];
    for (const file of staged) {
      const directories = file.split('/');
      const name = directories.pop() ?? file;
      const from = await walk(anchor, directories, { create: false, onStep: undefined });
      if (from.kind !== 'opened') throw new WorkspaceError({ code: 'ENOENT', syscall: 'open', path: file });
      try {
        const into = await walk(root, [...target, ...directories], { create: true, onStep: undefined });
        if (into.kind === 'refused') return filesystemRefusal(into.code, into.relativePath);
        if (into.kind === 'missing')
          throw new WorkspaceError({ code: 'ENOENT', syscall: 'open', path: file });
        try {
          await renameOnto(from.directory, into.directory, name);
          if (durable) await into.directory.sync();
        } finally {
          await into.directory.close();
        }
      } finally {
        await from.directory.close();
      }
    }
    const keep = new Set(staged);
    let removed = 0;
    for (const file of await listRegularFiles(root, walk, target)) {
      const relative = file.slice(verdict.path.length + 1);
      if (keep.has(relative)) continue;
      const directories = file.split('/');
      const name = directories.pop() ?? file;
      const reached = await walk(root, directories, { create: false, onStep: undefined });
      if (reached.kind !== 'opened') continue;
      try {
        await unlink(reached.directory.entry(name)).catch((error: unknown) => {
          if (errnoOf(error) !== 'ENOENT')
            throw workspaceErrorFrom(error, 'unlink', join(root.realPath, file));
        });
        removed += 1;
      } finally {
        await reached.directory.close();
      }
    }
    return { status: 'published', path: verdict.path, files: staged.length, removed };
  };

  return {
    files,
    publish: async (options = {}) => {
      if (finished) throw new Error('StagingFolder.publish called after publish() or discard()');
      const durable = options.durability !== 'none';
      try {
        return options.mode === 'files' ? await publishFiles(durable) : await publishFolder(durable);
      } finally {
        await discard();
      }
    },
    discard,
  };
}

/** rename(2) a staged file over the target's entry: the entry itself is replaced, never written through. */
async function renameOnto(from: DirectoryHandle, into: DirectoryHandle, name: string): Promise<void> {
  try {
    await rename(from.entry(name), into.entry(name));
  } catch (error) {
    throw workspaceErrorFrom(error, 'rename', join(into.expectedLocation, name));
  }
}

/** Every regular file below `directories` (root-relative, sorted), found without following any symlink. */
async function listRegularFiles(
  root: RootAnchor,
  walk: DirectoryWalk,
  directories: readonly string[],
): Promise<string[]> {
  const reached = await walk(root, directories, { create: false, onStep: undefined });
  if (reached.kind !== 'opened') return [];
  const prefix = directories.join('/');
  let entries;
  try {
    entries = await readdir(reached.directory.entry('.'), { withFileTypes: true });
  } finally {
    await reached.directory.close();
  }
  const files: string[] = [];
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const relative = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isFile()) files.push(relative);
    else if (entry.isDirectory())
      files.push(...(await listRegularFiles(root, walk, [...directories, entry.name])));
  }
  return files;
}
