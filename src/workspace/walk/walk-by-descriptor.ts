import { constants, readlinkSync } from 'node:fs';
import { mkdir, open } from '../quick-fs.js';
import type { QuickHandle } from '../quick-fs.js';
import { join } from 'node:path';
import { COMPONENT_ATTEMPTS } from './directory-handle.js';
import type {
  DirectoryHandle,
  DirectoryWalk,
  RootAnchor,
  WalkOptions,
  WalkResult,
} from './directory-handle.js';
import { entryKind } from './entry-kind.js';
import { errnoOf } from '../errno-of.js';
import { WorkspaceError, withWorkspaceError, workspaceErrorFrom } from '../workspace-error.js';

// O_NOFOLLOW on the last component only, and every walk step is a last component: no symlink is ever followed.
const DIRECTORY_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;

/** The `/proc/self/fd` alias of an open descriptor; a name appended to it resolves like openat(2) on that descriptor. */
export function descriptorPath(handle: QuickHandle): string {
  return `/proc/self/fd/${handle.fd}`;
}

/** The Linux walk: each directory is opened relative to its parent's descriptor, emulating openat(2). */
export const walkByDescriptor: DirectoryWalk = async (root, directories, options) => {
  let current = descriptorDirectory(root, root.handle, '', false);
  let handedOver = false;
  try {
    for (const name of directories) {
      const reached = await openChild(root, current, name, options);
      if (reached.kind !== 'opened') return reached;
      const parent = current;
      current = reached.directory;
      await parent.close();
      await options.onStep?.({ stage: 'directory-opened', directory: current.relativePath });
    }
    handedOver = true;
    return { kind: 'opened', directory: current };
  } finally {
    if (!handedOver) await current.close();
  }
};

async function openChild(
  root: RootAnchor,
  parent: DirectoryHandle,
  name: string,
  options: WalkOptions,
): Promise<WalkResult> {
  const relativePath = parent.relativePath === '' ? name : `${parent.relativePath}/${name}`;
  const entry = parent.entry(name);
  const shownAs = join(root.realPath, relativePath);
  for (let attempt = 0; attempt < COMPONENT_ATTEMPTS; attempt += 1) {
    try {
      const handle = await open(entry, DIRECTORY_FLAGS);
      return { kind: 'opened', directory: descriptorDirectory(root, handle, relativePath, true) };
    } catch (error) {
      const errno = errnoOf(error);
      // Linux reports a symlink opened with O_DIRECTORY|O_NOFOLLOW as ENOTDIR, so ask lstat which it was.
      if (errno === 'ENOTDIR' || errno === 'ELOOP') {
        const kind = await entryKind(entry, shownAs);
        if (kind === 'symlink') return { kind: 'refused', code: 'symlink', relativePath };
        if (kind !== 'missing' && kind !== 'directory') {
          return { kind: 'refused', code: 'not_a_directory', relativePath };
        }
        continue;
      }
      if (errno !== 'ENOENT') throw workspaceErrorFrom(error, 'open', shownAs);
    }
    if (!options.create) return { kind: 'missing' };
    if (await createDirectory(entry, shownAs)) {
      await options.onStep?.({ stage: 'directory-created', directory: relativePath });
    }
  }
  throw new WorkspaceError({ code: 'EAGAIN', syscall: 'open', path: shownAs });
}

/** mkdir through the parent's descriptor; false when something else created the entry first. */
async function createDirectory(entry: string, shownAs: string): Promise<boolean> {
  try {
    await mkdir(entry, 0o755);
    return true;
  } catch (error) {
    if (errnoOf(error) === 'EEXIST') return false;
    throw workspaceErrorFrom(error, 'mkdir', shownAs);
  }
}

function descriptorDirectory(
  root: RootAnchor,
  handle: QuickHandle,
  relativePath: string,
  owned: boolean,
): DirectoryHandle {
  const expectedLocation = relativePath === '' ? root.realPath : join(root.realPath, relativePath);
  return {
    relativePath,
    expectedLocation,
    entry: (name) => `${descriptorPath(handle)}/${name}`,
    locate: () => {
      try {
        // The kernel's current path of the open directory, wherever it has been moved to. Synchronous: procfs
        // builds it from the dentry cache with no disk or network I/O, so a threadpool trip would cost more.
        return Promise.resolve(readlinkSync(descriptorPath(handle)));
      } catch {
        return Promise.resolve(undefined);
      }
    },
    sync: () => withWorkspaceError('fsync', expectedLocation, () => handle.sync()),
    close: async () => {
      if (owned) await handle.close();
    },
  };
}
