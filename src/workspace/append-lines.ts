import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import type { DirectoryWalk, RootAnchor } from './directory-handle.js';
import { errnoOf } from './errno-of.js';
import { concurrentSwapRefusal, filesystemRefusal } from './filesystem-refusal.js';
import { checkDeclaredPath } from './path-rules.js';
import { WorkspaceError, withWorkspaceError, workspaceErrorFrom } from './workspace-error.js';
import type { AppendOutcome } from './write-outcome.js';

// O_APPEND: every write lands at the end; O_NOFOLLOW: never through a symlink; O_NONBLOCK: a FIFO never blocks.
const APPEND_FLAGS =
  constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** How one append runs. */
export interface AppendOptions {
  /** `fsync` (default) flushes the file (and a new file's directory); `none` trades crash safety for speed. */
  readonly durability?: 'fsync' | 'none';
}

/**
 * Appends `text` (whole lines) to the file at `declaredPath` below the root with one write(2) on an O_APPEND
 * descriptor, creating the file and its folders when missing; a symlink on the path or at the file is refused.
 */
export async function appendLinesBelow(
  root: RootAnchor,
  walk: DirectoryWalk,
  declaredPath: string,
  text: string,
  options: AppendOptions = {},
): Promise<AppendOutcome> {
  const verdict = checkDeclaredPath(declaredPath);
  if (!verdict.ok) return { status: 'refused', code: verdict.code, message: verdict.message };
  if (text !== '' && !text.endsWith('\n')) {
    // Misuse: a reader treats text after the last newline as an interrupted write.
    throw new Error(`appendLines: text for ${verdict.path} must end with a newline`);
  }
  const bytes = Buffer.from(text, 'utf8');
  const directories = verdict.path.split('/');
  const name = directories.pop() ?? verdict.path;
  const reached = await walk(root, directories, { create: true, onStep: undefined });
  if (reached.kind === 'refused') return filesystemRefusal(reached.code, reached.relativePath);
  if (reached.kind === 'missing')
    throw new WorkspaceError({ code: 'ENOENT', syscall: 'open', path: verdict.path });
  const directory = reached.directory;
  const shownAs = join(directory.expectedLocation, name);
  try {
    let handle;
    try {
      handle = await open(directory.entry(name), APPEND_FLAGS, 0o644);
    } catch (error) {
      const errno = errnoOf(error);
      if (errno === 'ELOOP') return filesystemRefusal('symlink', verdict.path);
      if (errno === 'EISDIR') return filesystemRefusal('is_a_directory', verdict.path);
      if (errno === 'ENXIO') return filesystemRefusal('not_a_regular_file', verdict.path);
      throw workspaceErrorFrom(error, 'open', shownAs);
    }
    try {
      const stats = await withWorkspaceError('fstat', shownAs, () => handle.stat());
      if (!stats.isFile()) return filesystemRefusal('not_a_regular_file', verdict.path);
      // The fallback walk opened the file by path: make sure that path still led into the root.
      if ((await directory.locate()) !== directory.expectedLocation) {
        return concurrentSwapRefusal(directory.relativePath, false);
      }
      if (bytes.length > 0) {
        // One write(2) on O_APPEND: concurrent appenders never interleave inside a line on a local filesystem.
        const { bytesWritten } = await withWorkspaceError('write', shownAs, () =>
          handle.write(bytes, 0, bytes.length),
        );
        if (bytesWritten !== bytes.length) {
          throw new WorkspaceError({ code: 'EIO', syscall: 'write', path: shownAs });
        }
      }
      if (options.durability !== 'none') {
        await withWorkspaceError('fsync', shownAs, () => handle.sync());
        // A new file's name is an entry of its directory: flush that too.
        if (stats.size === 0) await directory.sync();
      }
      return { status: 'appended', path: verdict.path, bytes: bytes.length };
    } finally {
      await handle.close();
    }
  } finally {
    await directory.close();
  }
}
