import { constants } from 'node:fs';
import { open } from '../quick-fs.js';
import type { QuickHandle } from '../quick-fs.js';
import { setTimeout as delay } from 'node:timers/promises';
import { join } from 'node:path';
import type { DirectoryWalk, RootAnchor } from '../walk/index.js';
import { errnoOf } from '../errno-of.js';
import { concurrentSwapRefusal, filesystemRefusal } from '../filesystem-refusal.js';
import { checkDeclaredPath } from '../paths/index.js';
import { WorkspaceError, withWorkspaceError, workspaceErrorFrom } from '../workspace-error.js';
import type { AppendOutcome } from '../write-outcome.js';

// O_APPEND: every write lands at the end; O_NOFOLLOW: never through a symlink; O_NONBLOCK: a FIFO never blocks;
// O_RDWR: the last byte is read on the same descriptor, to start on a fresh line.
const APPEND_FLAGS =
  constants.O_RDWR | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** How one append runs. */
export interface AppendOptions {
  /** `fsync` (default) flushes the file (and a new file's directory); `none` trades crash safety for speed. */
  readonly durability?: 'fsync' | 'none';
}

/**
 * Appends `text` (whole lines) to the file at `declaredPath` below the root with one write(2) on an O_APPEND
 * descriptor, creating the file and its folders when missing, and starting on a fresh line after an
 * interrupted write; a symlink on the path or at the file is refused.
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
  const lines = Buffer.from(text, 'utf8');
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
      // An interrupted write (a full disk, a kill) left a partial last line: end it, so the new lines parse.
      const bytes =
        lines.length > 0 && (await endsInsideLine(handle, shownAs)) ? Buffer.concat([NEWLINE, lines]) : lines;
      if (bytes.length > 0) {
        // One write(2) on O_APPEND: concurrent appenders never interleave inside a line on a local filesystem.
        // Two appenders that both saw the partial line each write their own '\n' ahead of their lines: that is
        // at worst an empty line between records (readers skip it), never a break inside one.
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

const NEWLINE = Buffer.from('\n');

/** How long a last line without `\n` must stay unchanged to count as interrupted, not as a write in progress. */
const SETTLE_MS = 10;

/**
 * Whether the file ends inside a line that an interrupted write left: its last byte (pread at the end) is not
 * `\n` and the size holds for {@link SETTLE_MS}; another appender's write in progress can show a size mid-line
 * for a moment (the kernel grows the file page by page), and waiting it out keeps that from adding an empty line.
 */
async function endsInsideLine(handle: QuickHandle, shownAs: string): Promise<boolean> {
  let end = await lastByteOf(handle, shownAs);
  let stableFor = 0;
  for (let checks = 0; end.open && stableFor < SETTLE_MS && checks < 100 * SETTLE_MS; checks++) {
    await delay(1);
    const now = await lastByteOf(handle, shownAs);
    stableFor = now.size === end.size ? stableFor + 1 : 0;
    end = now;
  }
  return end.open;
}

async function lastByteOf(
  handle: QuickHandle,
  shownAs: string,
): Promise<{ readonly size: number; readonly open: boolean }> {
  const { size } = await withWorkspaceError('fstat', shownAs, () => handle.stat());
  if (size === 0) return { size, open: false };
  const last = Buffer.alloc(1);
  const { bytesRead } = await withWorkspaceError('read', shownAs, () => handle.read(last, 0, 1, size - 1));
  return { size, open: bytesRead === 1 && last[0] !== NEWLINE[0] };
}
