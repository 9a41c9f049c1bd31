/** Contents a recorder hashed lately, by content hash, to count a next version's lines without reading the store. */
export interface RecentContents {
  remember(hash: string, bytes: Uint8Array): void;
  get(hash: string): Uint8Array | undefined;
}

/** Bytes kept at most: the previous version of most paths a run rewrites, without holding a large project in memory. */
const RECENT_BYTES = 16 * 1024 * 1024;

/**
 * A bounded map of recent contents, oldest dropped first. Only bytes this process hashed itself go in, so a hit
 * is the content of its hash, which the store's object may no longer be (verify reports that).
 */
export function recentContents(limit = RECENT_BYTES): RecentContents {
  const held = new Map<string, Uint8Array>();
  let total = 0;
  return {
    remember(hash, bytes) {
      if (bytes.byteLength > limit) return;
      const known = held.get(hash);
      if (known !== undefined) {
        // Refreshed: moved to the newest end of the insertion order.
        held.delete(hash);
        held.set(hash, known);
        return;
      }
      // A copy: the caller's buffer may be reused after the call, and these bytes must stay those of `hash`.
      held.set(hash, bytes.slice());
      total += bytes.byteLength;
      for (const [oldest, oldBytes] of held) {
        if (total <= limit) break;
        held.delete(oldest);
        total -= oldBytes.byteLength;
      }
    },
    get: (hash) => held.get(hash),
  };
}
