import { OBJECTS_DIR, objectPath, sha256Hex } from '../project/index.js';

const CONTENT_HASH_PATTERN = /^sha256:([0-9a-f]{64})$/;

/** The `sha256:<64 hex>` content hash of `bytes`. */
export function contentHashOf(bytes: Uint8Array): string {
  return `sha256:${sha256Hex(bytes)}`;
}

/** The 64 hex digits of a well-formed content hash, or undefined for anything else. */
export function hexOfContentHash(hash: string): string | undefined {
  return CONTENT_HASH_PATTERN.exec(hash)?.[1];
}

/** The object's path below `.agent/objects/` for a hash's hex digits: `sha256/<2 hex>/<62 hex>`. */
export function objectPathOf(hex: string): string {
  return objectPath(hex).slice(OBJECTS_DIR.length + 1);
}
