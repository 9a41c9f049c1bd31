import { createHash } from 'node:crypto';
import type { QuickHandle } from '../../workspace/index.js';

/** What a snapshot hashes: a regular file it opened through the confined walk, or a symlink's own text. */
export type ProjectFileSource =
  | {
      readonly kind: 'file';
      /** Project-relative POSIX path, for tests and messages; the bytes come from `handle`. */
      readonly path: string;
      /** The file opened read-only (never through a symlink); the snapshot closes it. */
      readonly handle: QuickHandle;
      /** Its size by fstat when it was opened. */
      readonly size: number;
    }
  | { readonly kind: 'symlink'; readonly path: string; readonly text: string };

/** Computes the sha256 hex of one file of the project; injectable so tests count reads. */
export type ProjectFileHasher = (source: ProjectFileSource) => Promise<string>;

/** Files up to this size are read in one call on the calling thread; larger ones in chunks through the pool. */
const WHOLE_READ_BYTES = 1024 * 1024;
const CHUNK_BYTES = 1024 * 1024;

/** The default hasher: the bytes of the opened file, or the text of a symlink (never followed). */
export const hashProjectFile: ProjectFileHasher = async (source) => {
  const hash = createHash('sha256');
  if (source.kind === 'symlink') return hash.update(source.text).digest('hex');
  if (source.size <= WHOLE_READ_BYTES) {
    // One read(2) of one byte more than fstat saw: a short read is the end of a regular file, a full one means
    // the file grew since, and the rest is read too.
    const whole = Buffer.allocUnsafe(source.size + 1);
    const { bytesRead } = await source.handle.read(whole, 0, whole.length);
    hash.update(whole.subarray(0, bytesRead));
    if (bytesRead < whole.length) return hash.digest('hex');
    return hash.update(await source.handle.readFile()).digest('hex');
  }
  // Memory stays flat and the event loop keeps serving while a large file is read.
  const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
  for (;;) {
    const bytesRead = await source.handle.readInPool(chunk);
    if (bytesRead === 0) return hash.digest('hex');
    hash.update(chunk.subarray(0, bytesRead));
  }
};
