import { join } from 'node:path';
import type { ConfinedWriteOptions } from '../confined-write-options.js';
import type { DirectoryHandle } from '../walk/index.js';
import { concurrentSwapRefusal, filesystemRefusal } from '../filesystem-refusal.js';
import { inspectTarget } from './inspect-target.js';
import { isInPlace, renameIntoPlace } from './replace-file-atomically.js';
import { FILE_MODE, READ_ONLY_MODE, removeOwnFile, streamTempFile } from './write-temp-file.js';
import type { StreamedWriteOutcome } from '../write-outcome.js';

/** How one streamed write runs: a confined write without a dry run, and the hash its bytes must have. */
export interface StreamedWriteOptions extends Omit<ConfinedWriteOptions, 'dryRun'> {
  /** sha256 (64 hex digits) the streamed bytes must hash to; on a mismatch nothing is kept (`hash_mismatch`). */
  readonly expectedSha256?: string;
}

/** One file to stream into an opened directory of the workspace. */
export interface StreamedReplacement {
  readonly directory: DirectoryHandle;
  readonly name: string;
  readonly path: string;
  readonly chunks: AsyncIterable<Uint8Array>;
  readonly options: StreamedWriteOptions;
}

/**
 * Streams chunks into a temp file created exclusively beside the target, hashing them as they go, and renames
 * it over the target only when the hash is the expected one: memory holds one chunk whatever the file's size.
 */
export async function streamFileAtomically(replacement: StreamedReplacement): Promise<StreamedWriteOutcome> {
  const { directory, name, path, chunks, options } = replacement;
  const shownAs = join(directory.expectedLocation, name);
  // Judged before a byte is streamed, so a refused target costs no write; judged again once the digest is known.
  const before = await inspectTarget(directory, name, { sha256: '', size: -1 }, shownAs);
  if (before.kind === 'refused') return filesystemRefusal(before.code, path);
  if (!(await isInPlace(directory))) return concurrentSwapRefusal(directory.relativePath, false);

  const temp = await streamTempFile(
    directory,
    chunks,
    options.durability !== 'none',
    options.readOnly === true ? READ_ONLY_MODE : FILE_MODE,
  );
  const tempShown = join(directory.expectedLocation, temp.name);
  let handedOver = false;
  try {
    if (options.expectedSha256 !== undefined && temp.sha256 !== options.expectedSha256) {
      return { status: 'hash_mismatch', path, sha256: temp.sha256, bytes: temp.size };
    }
    const target = await inspectTarget(directory, name, temp, shownAs);
    if (target.kind === 'refused') return filesystemRefusal(target.code, path);
    await options.onStep?.({ stage: 'target-checked', path });
    if (target.kind === 'same') return { status: 'unchanged', path };
    handedOver = true;
    return await renameIntoPlace({ directory, name, path, options }, temp);
  } finally {
    if (!handedOver) await removeOwnFile(directory.entry(temp.name), temp.identity, tempShown);
  }
}
