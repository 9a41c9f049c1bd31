import { constants } from 'node:fs';
import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';
import { errnoOf } from '../../workspace/index.js';

/** What stands at a path judged a regular file by lstat: its hash and size, or why it could not be hashed. */
export type HashedArtifactFile =
  | { readonly kind: 'file'; readonly contentHash: string; readonly bytes: number }
  | { readonly kind: 'missing' }
  | { readonly kind: 'not_a_file' };

/**
 * Hashes a file as a stream (a forged file of any size is never read whole), re-checking it on the open
 * descriptor: O_NOFOLLOW refuses a link planted after the lstat, O_NONBLOCK keeps a planted FIFO from blocking.
 */
export async function hashArtifactFile(location: string): Promise<HashedArtifactFile> {
  let handle;
  try {
    handle = await open(location, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = errnoOf(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') return { kind: 'missing' };
    if (code === 'ELOOP' || code === 'ENXIO') return { kind: 'not_a_file' };
    throw error;
  }
  try {
    if (!(await handle.stat()).isFile()) return { kind: 'not_a_file' };
    const hash = createHash('sha256');
    let bytes = 0;
    for await (const chunk of handle.createReadStream({ autoClose: false })) {
      const buffer = chunk as Buffer;
      bytes += buffer.byteLength;
      hash.update(buffer);
    }
    return { kind: 'file', contentHash: `sha256:${hash.digest('hex')}`, bytes };
  } finally {
    await handle.close();
  }
}
