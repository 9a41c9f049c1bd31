import { OBJECTS_DIR } from '../project/index.js';
import { contentHashOf, hexOfContentHash, objectPathOf } from './content-hash.js';
import type { ObjectStore, PutResult } from './object-store.js';
import { checkedObject, malformedHashError, streamedMismatchError } from './object-store-error.js';

/**
 * The objects of a store that keeps them under their layout keys (`.agent/objects/sha256/<2 hex>/<62 hex>`): the
 * memory store's and the remote's. Stored through `replace`, read back through `read` and verified by hash on every
 * read; `where` names the store in messages.
 */
export function objectsAtKeys(
  read: (key: string) => Promise<Uint8Array | undefined>,
  replace: (key: string, bytes: Uint8Array) => Promise<void>,
  where: string,
): ObjectStore {
  const keyOf = (hash: string): string => {
    const hex = hexOfContentHash(hash);
    if (hex === undefined) throw malformedHashError(hash);
    return `${OBJECTS_DIR}/${objectPathOf(hex)}`;
  };
  const put = async (bytes: Uint8Array): Promise<PutResult> => {
    const hash = contentHashOf(bytes);
    const path = keyOf(hash);
    const stored = await read(path);
    // Healed as the files store heals: an object holding other bytes is replaced.
    if (stored !== undefined && Buffer.from(stored).equals(bytes)) return { hash, path, stored: false };
    await replace(path, bytes);
    return { hash, path, stored: true };
  };
  return {
    put,
    putAll: async (contents) => {
      const results: PutResult[] = [];
      for (const bytes of contents) results.push(await put(bytes));
      return results;
    },
    putStream: async (hash, chunks) => {
      const path = keyOf(hash);
      const parts: Uint8Array[] = [];
      for await (const chunk of chunks) parts.push(chunk);
      const bytes = Buffer.concat(parts);
      const actual = contentHashOf(bytes);
      if (actual !== hash) throw streamedMismatchError(hash, bytes.byteLength, actual);
      const stored = await read(path);
      if (stored !== undefined && contentHashOf(stored) === hash) return { hash, path, stored: false };
      await replace(path, bytes);
      return { hash, path, stored: true };
    },
    get: async (hash) => {
      const bytes = await read(keyOf(hash));
      return checkedObject(hash, bytes, bytes && contentHashOf(bytes), where);
    },
    has: async (hash) => (await read(keyOf(hash))) !== undefined,
    size: async (hash) => (await read(keyOf(hash)))?.byteLength,
    verify: async (hash) => {
      const bytes = await read(keyOf(hash));
      if (bytes === undefined) return 'missing';
      return contentHashOf(bytes) === hash ? 'ok' : 'corrupt';
    },
    close: () => Promise.resolve(),
  };
}
