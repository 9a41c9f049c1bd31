import { createHash } from 'node:crypto';
import { StoreError } from '../../store/index.js';
import type { ProjectStore } from '../../store/index.js';

/** What stands at a key listed as a file: its hash and size, or why it could not be hashed. */
export type HashedArtifactFile =
  | { readonly kind: 'file'; readonly contentHash: string; readonly bytes: number }
  | { readonly kind: 'missing' }
  /** `refusal`: what the store found in its place (`symlink`, `hard_link`, ...). */
  | { readonly kind: 'not_a_file'; readonly refusal: string | undefined };

/** How much of a file one read takes: a forged file of any size is never read whole. */
const PART_BYTES = 64 * 1024;

/**
 * Hashes the file stored under `key` in parts, opened by the store as it reads (the files store: no link followed,
 * a FIFO never waited on, a file with a second name refused).
 */
export async function hashArtifactFile(store: ProjectStore, key: string): Promise<HashedArtifactFile> {
  let reader;
  try {
    reader = await store.openReader(key);
  } catch (error) {
    if (error instanceof StoreError && error.code === 'not_a_file')
      return { kind: 'not_a_file', refusal: error.refusal };
    throw error;
  }
  if (reader === undefined) return { kind: 'missing' };
  try {
    const hash = createHash('sha256');
    for (let at = 0; at < reader.size;) {
      const part = await reader.read(at, PART_BYTES);
      if (part.byteLength === 0) break;
      hash.update(part);
      at += part.byteLength;
    }
    return { kind: 'file', contentHash: `sha256:${hash.digest('hex')}`, bytes: reader.size };
  } finally {
    await reader.close();
  }
}
