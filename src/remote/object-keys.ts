import { OBJECTS_DIR } from '../project/index.js';
import { bytesToRead, StoreError } from '../store/index.js';
import type { StoredFileInfo, StoredFileReader, StoreEntry, StoredTail } from '../store/index.js';
import type { ObjectBackend } from './object-backend.js';

const HEX2 = /^[0-9a-f]{2}$/;
const HEX62 = /^[0-9a-f]{62}$/;

/** The remote's keys below `.agent/objects/`: the object backend's contents under their layout keys. */
export interface ObjectKeys {
  /** `objects`: the name `.agent/objects` lists under in `.agent`. */
  readonly top: string;
  /** Whether `key` is `.agent/objects` or below it. */
  owns(key: string): boolean;
  read(key: string, maxBytes?: number): Promise<Uint8Array | undefined>;
  info(key: string): Promise<StoredFileInfo | undefined>;
  list(folder: string): Promise<StoreEntry[]>;
  replace(key: string, bytes: Uint8Array): Promise<void>;
  remove(key: string): Promise<boolean>;
  readFrom(key: string, from: number, length?: number): Promise<StoredTail | undefined>;
  openReader(key: string): Promise<StoredFileReader | undefined>;
}

/**
 * Reads and writes of the keys `.agent/objects/sha256/<2 hex>/<62 hex>` go to `backend` (raw bytes: verifying
 * them is the object store's business); the folders above list what it holds; any other key there holds nothing
 * and takes no write.
 */
export function objectKeys(backend: ObjectBackend, location: string): ObjectKeys {
  const top = OBJECTS_DIR.slice(OBJECTS_DIR.lastIndexOf('/') + 1);
  /** The components below `.agent/objects`. */
  const below = (key: string): string[] =>
    key === OBJECTS_DIR ? [] : key.slice(OBJECTS_DIR.length + 1).split('/');
  /** The hex of an object key, or undefined for any other key. */
  const hexOf = (key: string): string | undefined => {
    const [algorithm, folder, name, ...rest] = below(key);
    return algorithm === 'sha256' &&
      folder !== undefined &&
      HEX2.test(folder) &&
      name !== undefined &&
      HEX62.test(name) &&
      rest.length === 0
      ? `${folder}${name}`
      : undefined;
  };
  /** Throws `not_a_file` when `key` is one of the layout's folders and holds something. */
  const checkNotFolder = async (key: string): Promise<void> => {
    const parts = below(key);
    const isFolder =
      parts.length === 0 ||
      (parts.length === 1 && parts[0] === 'sha256') ||
      (parts.length === 2 && parts[0] === 'sha256' && HEX2.test(parts[1] ?? ''));
    if (isFolder && (await listBelow(parts)).length > 0) {
      throw new StoreError({
        code: 'not_a_file',
        key,
        message: `${location}: ${key} is a folder, not a file`,
      });
    }
  };
  const listBelow = async (parts: readonly string[]): Promise<string[]> => {
    if (parts.length === 0) return (await backend.isEmpty()) ? [] : ['sha256'];
    if (parts[0] !== 'sha256' || parts.length > 2) return [];
    if (parts.length === 2 && !HEX2.test(parts[1] ?? '')) return [];
    return backend.list(parts.slice(1));
  };
  const read = async (key: string, maxBytes?: number): Promise<Uint8Array | undefined> => {
    const hex = hexOf(key);
    if (hex === undefined) {
      await checkNotFolder(key);
      return undefined;
    }
    if (maxBytes !== undefined) {
      const size = await backend.size(hex);
      if (size !== undefined && size > maxBytes) {
        throw new StoreError({
          code: 'too_large',
          key,
          message: `${location}: ${key} holds ${String(size)} bytes, more than the ${String(maxBytes)} this read takes`,
        });
      }
    }
    return backend.get(hex);
  };
  const writableHex = (key: string): string => {
    const hex = hexOf(key);
    if (hex === undefined) {
      throw new StoreError({
        code: 'write_refused',
        key,
        message: `${location}: cannot write ${key}: below ${OBJECTS_DIR}/ only objects are kept, at sha256/<2 hex>/<62 hex>`,
      });
    }
    return hex;
  };
  return {
    top,
    owns: (key) => key === OBJECTS_DIR || key.startsWith(`${OBJECTS_DIR}/`),
    read,
    info: async (key) => {
      const hex = hexOf(key);
      if (hex === undefined) {
        await checkNotFolder(key);
        return undefined;
      }
      const size = await backend.size(hex);
      return size === undefined ? undefined : { size, modifiedMs: 0 };
    },
    list: async (folder) => {
      const parts = below(folder);
      const names = await listBelow(parts);
      const kind: StoreEntry['kind'] = parts.length === 2 ? 'file' : 'folder';
      return names.map((name) => ({ name, kind }));
    },
    replace: (key, bytes) => backend.put(writableHex(key), bytes),
    remove: (key) => backend.remove(writableHex(key)),
    readFrom: async (key, from, length) => {
      const bytes = await read(key);
      if (bytes === undefined) return undefined;
      const end = length === undefined ? undefined : from + length;
      return { bytes: bytes.slice(from, end), size: bytes.byteLength, version: '1' };
    },
    openReader: async (key) => {
      const bytes = await read(key);
      if (bytes === undefined) return undefined;
      let closed = false;
      return {
        size: bytes.byteLength,
        read: (position, length) => {
          if (closed) return Promise.reject(new Error('the reader is closed'));
          return Promise.resolve(
            bytes.slice(position, position + bytesToRead(bytes.byteLength, position, length)),
          );
        },
        close: () => {
          closed = true;
          return Promise.resolve();
        },
      };
    },
  };
}
