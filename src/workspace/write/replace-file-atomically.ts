import { rename } from '../quick-fs.js';
import { join } from 'node:path';
import type { ConfinedWriteOptions } from '../confined-write-options.js';
import type { DirectoryHandle } from '../walk/index.js';
import { errnoOf } from '../errno-of.js';
import { concurrentSwapRefusal, filesystemRefusal } from '../filesystem-refusal.js';
import { inspectTarget } from './inspect-target.js';
import { workspaceErrorFrom } from '../workspace-error.js';
import { FILE_MODE, READ_ONLY_MODE, removeOwnFile, writeTempFile } from './write-temp-file.js';
import type { TempFile } from './write-temp-file.js';
import type { WriteOutcome } from '../write-outcome.js';

/** One file to put into an opened directory of the workspace. */
export interface Replacement {
  /** The opened directory that holds the target. */
  readonly directory: DirectoryHandle;
  /** The target's name inside `directory`. */
  readonly name: string;
  /** The normalized path below the root, reported in the outcome. */
  readonly path: string;
  readonly bytes: Uint8Array;
  readonly options: ConfinedWriteOptions;
}

/**
 * Replaces the target atomically: temp file, fsync, rename over the entry (never writing through it), fsync the
 * directory, with the directory's location re-checked before and after the rename.
 */
export async function replaceFileAtomically(replacement: Replacement): Promise<WriteOutcome> {
  const { directory, name, path, bytes, options } = replacement;
  const shownAs = join(directory.expectedLocation, name);
  const digest = options.digestReplaced === true;
  const target = await inspectTarget(directory, name, bytes, shownAs, digest);
  if (target.kind === 'refused') return filesystemRefusal(target.code, path);
  await options.onStep?.({ stage: 'target-checked', path });
  if (target.kind === 'same') return { status: 'unchanged', path };
  if (options.dryRun === true) return { status: 'would_write', path };
  // The fallback creates the temp file by path, so make sure that path still leads into the workspace.
  if (!(await isInPlace(directory))) return concurrentSwapRefusal(directory.relativePath, false);

  const durable = options.durability !== 'none';
  const temp = await writeTempFile(
    directory,
    bytes,
    durable,
    options.readOnly === true ? READ_ONLY_MODE : FILE_MODE,
  );
  const written = await renameIntoPlace({ directory, name, path, options }, temp);
  if (!digest || written.status !== 'written') return written;
  // A file swapped in after the check is replaced unread: the digest is of what the check saw.
  return { ...written, replacedSha256: target.kind === 'different' ? (target.sha256 ?? null) : null };
}

/**
 * Renames a fully written temp file of `directory` over the target entry, with the directory's location
 * re-checked before and after the rename; the temp file never outlives a refusal or an error.
 */
export async function renameIntoPlace(
  target: Omit<Replacement, 'bytes'>,
  temp: TempFile,
): Promise<WriteOutcome> {
  const { directory, name, path, options } = target;
  const shownAs = join(directory.expectedLocation, name);
  const durable = options.durability !== 'none';
  const tempEntry = directory.entry(temp.name);
  let renamed = false;
  try {
    await options.onStep?.({ stage: 'temp-written', path });
    if (!(await isInPlace(directory))) return concurrentSwapRefusal(directory.relativePath, false);
    await options.onStep?.({ stage: 'before-rename', path });
    const renaming = await renameOnto(tempEntry, directory.entry(name), shownAs);
    if (renaming === 'directory_in_the_way') return filesystemRefusal('is_a_directory', path);
    if (renaming === 'vanished') return concurrentSwapRefusal(directory.relativePath, false);
    renamed = true;
    let stillInPlace = true;
    try {
      await options.onStep?.({ stage: 'renamed', path });
    } finally {
      // Checked even when onStep throws: a file in a directory that left the workspace is never kept.
      stillInPlace = await isInPlace(directory);
      if (!stillInPlace) await removeOwnFile(directory.entry(name), temp.identity, shownAs);
    }
    if (!stillInPlace) return concurrentSwapRefusal(directory.relativePath, true);
    if (durable) await directory.sync();
    return { status: 'written', path };
  } finally {
    if (!renamed) await removeOwnFile(tempEntry, temp.identity, join(directory.expectedLocation, temp.name));
  }
}

/** Whether the directory still lies exactly where the walk found it inside the real root. */
export async function isInPlace(directory: DirectoryHandle): Promise<boolean> {
  return (await directory.locate()) === directory.expectedLocation;
}

/** rename(2) the temp file over the target entry, which replaces the entry itself and never writes through it. */
async function renameOnto(
  tempEntry: string,
  targetEntry: string,
  shownAs: string,
): Promise<'renamed' | 'directory_in_the_way' | 'vanished'> {
  try {
    await rename(tempEntry, targetEntry);
    return 'renamed';
  } catch (error) {
    const errno = errnoOf(error) ?? '';
    if (['EISDIR', 'ENOTEMPTY', 'EEXIST'].includes(errno)) return 'directory_in_the_way';
    // The fallback renames by path: a directory moved away since the check leaves nothing to rename into.
    if (errno === 'ENOENT' || errno === 'ENOTDIR') return 'vanished';
    throw workspaceErrorFrom(error, 'rename', shownAs);
  }
}
