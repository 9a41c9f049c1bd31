import { constants } from 'node:fs';
import { link, lstat, open, rename, unlink } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { errnoOf } from '../errno-of.js';
import { tempFileName } from '../temp-file-name.js';
import { withWorkspaceError, workspaceErrorFrom } from '../workspace-error.js';

/** How {@link writeFileAtomically} treats an existing target. */
export interface AtomicFileOptions {
  /** Replace an existing file (the entry itself, never through a symlink); by default an existing target is kept. */
  readonly replace?: boolean;
  /** `fsync` (default) flushes the file before the rename and its folder after. */
  readonly durability?: 'fsync' | 'none';
  /**
   * Reads the finished temp file back (by its path) before it is moved into place; a throw removes it and leaves
   * the target as it was, so only a file that passed the check ever appears at the target.
   */
  readonly check?: (tempPath: string) => Promise<void>;
}

/** What {@link writeFileAtomically} did: the file is in place with `bytes` bytes, or the target already existed. */
export type AtomicFileOutcome =
  | { readonly status: 'written'; readonly path: string; readonly bytes: number }
  | { readonly status: 'exists'; readonly path: string };

// O_EXCL: never reuse an entry someone planted; O_NOFOLLOW: never create through a symlink.
const CREATE_FLAGS = constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY | constants.O_NOFOLLOW;

/**
 * Writes a file anywhere (an output the user named, outside any workspace): `fill` writes into a fresh temp file
 * beside `target`, which is synced and then linked (no-clobber) or renamed (`replace`) into place; on any failure
 * the temp file is removed, so the target is the old file, the whole new one, or absent, never a partial file.
 */
export async function writeFileAtomically(
  target: string,
  fill: (handle: FileHandle) => Promise<number>,
  options: AtomicFileOptions = {},
): Promise<AtomicFileOutcome> {
  const folder = dirname(target);
  const durable = options.durability !== 'none';
  const temp = join(folder, tempFileName());
  const handle = await withWorkspaceError('open', temp, () => open(temp, CREATE_FLAGS, 0o644));
  try {
    let bytes: number;
    try {
      bytes = await fill(handle);
      if (durable) await withWorkspaceError('fsync', temp, () => handle.sync());
    } finally {
      await handle.close();
    }
    await options.check?.(temp);
    const placed = await moveIntoPlace(temp, target, options.replace === true);
    if (placed === 'exists') return { status: 'exists', path: target };
    if (durable) await syncFolder(folder);
    return { status: 'written', path: target, bytes };
  } finally {
    // After a link(2) the temp name is a second name of the target; after a rename it is gone (ENOENT).
    await unlink(temp).catch(() => undefined);
  }
}

/** Links the finished temp file to `target` (refusing one created meanwhile) or renames it over `target`. */
async function moveIntoPlace(temp: string, target: string, replace: boolean): Promise<'placed' | 'exists'> {
  if (replace) {
    await withWorkspaceError('rename', target, () => rename(temp, target));
    return 'placed';
  }
  try {
    await link(temp, target);
    return 'placed';
  } catch (error) {
    const errno = errnoOf(error);
    if (errno === 'EEXIST') return 'exists';
    // Filesystems without hard links: a check before the rename is all the no-clobber guard there is.
    if (errno !== 'EPERM' && errno !== 'ENOTSUP' && errno !== 'EOPNOTSUPP') {
      throw workspaceErrorFrom(error, 'link', target);
    }
  }
  const present = await lstat(target).then(
    () => true,
    (error: unknown) => {
      if (errnoOf(error) === 'ENOENT') return false;
      throw workspaceErrorFrom(error, 'lstat', target);
    },
  );
  if (present) return 'exists';
  await withWorkspaceError('rename', target, () => rename(temp, target));
  return 'placed';
}

async function syncFolder(folder: string): Promise<void> {
  // Best effort: some platforms (Windows) cannot open a folder for fsync.
  const handle = await open(folder, constants.O_RDONLY).catch(() => undefined);
  if (handle === undefined) return;
  try {
    await handle.sync().catch(() => undefined);
  } finally {
    await handle.close();
  }
}
