import { constants } from 'node:fs';
import { mkdir, open, realpath } from '../quick-fs.js';
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

/**
 * The portable fallback walk: lstat each component by path and re-check the real path later; this narrows the
 * check-to-use race but cannot close it, because every later call resolves the path again.
 */
export const walkByLstat: DirectoryWalk = async (root, directories, options) => {
  let relativePath = '';
  for (const name of directories) {
    relativePath = relativePath === '' ? name : `${relativePath}/${name}`;
    const reached = await reachDirectory(root, relativePath, options);
    if (reached !== undefined) return reached;
    await options.onStep?.({ stage: 'directory-opened', directory: relativePath });
  }
  return { kind: 'opened', directory: pathDirectory(root, relativePath) };
};

/** Makes sure `relativePath` is a real directory (creating it if allowed); undefined when it is. */
async function reachDirectory(
  root: RootAnchor,
  relativePath: string,
  options: WalkOptions,
): Promise<WalkResult | undefined> {
  const location = join(root.realPath, relativePath);
  for (let attempt = 0; attempt < COMPONENT_ATTEMPTS; attempt += 1) {
    const kind = await entryKind(location, location);
    switch (kind) {
      case 'directory':
        return undefined;
      case 'symlink':
        return { kind: 'refused', code: 'symlink', relativePath };
      case 'file':
      case 'special':
        return { kind: 'refused', code: 'not_a_directory', relativePath };
      case 'missing':
        if (!options.create) return { kind: 'missing' };
        if (await createDirectory(location)) {
          await options.onStep?.({ stage: 'directory-created', directory: relativePath });
        }
    }
  }
  throw new WorkspaceError({ code: 'EAGAIN', syscall: 'lstat', path: location });
}

async function createDirectory(location: string): Promise<boolean> {
  try {
    await mkdir(location, 0o755);
    return true;
  } catch (error) {
    if (errnoOf(error) === 'EEXIST') return false;
    throw workspaceErrorFrom(error, 'mkdir', location);
  }
}

function pathDirectory(root: RootAnchor, relativePath: string): DirectoryHandle {
  const location = relativePath === '' ? root.realPath : join(root.realPath, relativePath);
  return {
    relativePath,
    expectedLocation: location,
    entry: (name) => join(location, name),
    locate: async () => {
      try {
        return await realpath(location);
      } catch {
        return undefined;
      }
    },
    sync: () => withWorkspaceError('fsync', location, () => syncDirectory(location)),
    close: () => Promise.resolve(),
  };
}

async function syncDirectory(location: string): Promise<void> {
  const handle = await open(location, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
