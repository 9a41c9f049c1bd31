import { constants } from 'node:fs';
import { join } from 'node:path';
import { OBJECTS_DIR } from '../project/index.js';
import { errnoOf, openConfinedRoot, quickFs } from '../workspace/index.js';
import type { ConfinedRoot } from '../workspace/index.js';
import { contentHashOf, hexOfContentHash, objectPathOf } from './content-hash.js';
import { checkedObject, malformedHashError, streamedMismatchError } from './object-store-error.js';

/** What `put` did with one content. */
export interface PutResult {
  /** The content's `sha256:<64 hex>` hash. */
  readonly hash: string;
  /** The object's path relative to the project root: `.agent/objects/sha256/<2 hex>/<62 hex>`. */
  readonly path: string;
  /** True when this call wrote the object, false when identical content was already stored. */
  readonly stored: boolean;
}

/** What `verify` found for one hash. */
export type ObjectVerdict = 'ok' | 'missing' | 'corrupt';

/** The content-addressed store of a project, shared by all its runs. */
export interface ObjectStore {
  /**
   * Stores `bytes` once under their hash; identical content already stored is left alone (found by one read of
   * the object and a byte compare, no write, no fsync), and an object holding other bytes is replaced (healed).
   */
  put(bytes: Uint8Array): Promise<PutResult>;
  /**
   * Stores each of `contents` in order, new objects written through one write batch (each folder walked once)
   * and, under fsync durability, all durable before it resolves. An object already there is trusted by its name
   * and size (one lstat, not read): objects are only ever renamed into place whole and never rewritten, and a
   * damaged one is what `verify` finds and `put` heals.
   */
  putAll(contents: readonly Uint8Array[]): Promise<PutResult[]>;
  /**
   * Stores the content streamed from `chunks` under `hash`, renamed into place only once the bytes are known to
   * hash to it (memory holds one chunk); throws `corrupt_object` on a mismatch, storing nothing.
   */
  putStream(hash: string, chunks: AsyncIterable<Uint8Array>): Promise<PutResult>;
  /** Reads an object and checks its bytes against `hash`, throwing `corrupt_object` on a mismatch. */
  get(hash: string): Promise<Uint8Array>;
  /** Whether an object file exists for `hash`, without reading it. */
  has(hash: string): Promise<boolean>;
  /** The size in bytes of the object stored for `hash`, without reading it; undefined when none is. */
  size(hash: string): Promise<number | undefined>;
  /** Re-hashes an object: `ok`, `missing` or `corrupt`. */
  verify(hash: string): Promise<ObjectVerdict>;
  /** Waits for writes in flight and releases the store. */
  close(): Promise<void>;
}

/** Options of {@link openObjectStore}. */
export interface ObjectStoreOptions {
  /** `fsync` (default): an object is on disk before `put` resolves. `none`: for generated data and benchmarks. */
  readonly durability?: 'fsync' | 'none';
  /**
   * For a reader (a bundle, an audit): nothing is created, so a project without objects answers every hash
   * missing and is given no `.agent/objects`; a put throws.
   */
  readonly readOnly?: boolean;
}

/** Objects written at once by `putAll`: libuv's default pool of 4 threads, so their fsyncs share journal commits. */
const WRITES_AT_ONCE = 4;

/** The object stores (by real path) this process has swept: once per process, before its first write. */
const sweptStores = new Set<string>();

/** The folders of an object store, `sha256/<2 hex>`. */
const OBJECT_FOLDER = /^[0-9a-f]{2}$/;

/**
 * Removes the temp files killed writers left in every folder of the store (D91): the confined writer sweeps
 * only the folder it writes into, and objects spread over 256 folders, so a killed writer's temp object could
 * wait indefinitely for the next object of its folder. Never throws: a sweep must not fail the write after it.
 */
async function sweepObjectFolders(root: ConfinedRoot): Promise<void> {
  if (sweptStores.has(root.realPath)) return;
  sweptStores.add(root.realPath);
  let names: string[];
  try {
    names = (await quickFs.readdir(join(root.realPath, 'sha256'), { withFileTypes: true }))
      .filter((entry) => entry.isDirectory() && OBJECT_FOLDER.test(entry.name))
      .map((entry) => entry.name);
  } catch {
    return;
  }
  // Through the confined walk, folder by folder: a symlink in place of a folder is never followed.
  for (const name of names) await root.sweepTempFiles(`sha256/${name}`);
}

/** Opens (creating when missing) the object store under `<projectDir>/.agent/objects`. */
export async function openObjectStore(
  projectDir: string,
  options: ObjectStoreOptions = {},
): Promise<ObjectStore> {
  const durability = options.durability ?? 'fsync';
  const readOnly = options.readOnly === true;
  const root = await openConfinedRoot(join(projectDir, OBJECTS_DIR), { create: !readOnly }).catch(
    (error: unknown) => {
      // Read only, a project without objects is a store holding none.
      if (readOnly && ['ENOENT', 'ENOTDIR'].includes(errnoOf(error) ?? '')) return undefined;
      throw error;
    },
  );
  if (root === undefined) return noObjects(OBJECTS_DIR);

  /** The checked hex digits of `hash`; a malformed hash never reaches path building. */
  const hexOf = (hash: string): string => {
    const hex = hexOfContentHash(hash);
    if (hex === undefined) throw malformedHashError(hash);
    return hex;
  };

  const absolutePathOf = (hex: string): string => join(root.realPath, objectPathOf(hex));

  // The first write of this process into the store sweeps it; a store only read (verify, replay) never does.
  let swept: Promise<void> | undefined;
  const sweepBeforeWriting = (): Promise<void> => (swept ??= sweepObjectFolders(root));

  /** The object's bytes, or undefined when it does not exist. */
  const readObject = async (hex: string): Promise<Uint8Array | undefined> => {
    let handle;
    try {
      // O_NOFOLLOW: an object planted as a symlink is never followed out of the store; O_NONBLOCK: nor a FIFO waited on.
      handle = await quickFs.open(
        absolutePathOf(hex),
        constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK,
      );
    } catch (error) {
      if (errnoOf(error) === 'ENOENT') return undefined;
      throw error;
    }
    try {
      return await handle.readFile();
    } finally {
      await handle.close();
    }
  };

  /** What a write of the object at `relative` did, as a PutResult. */
  const putResult = (
    hash: string,
    relative: string,
    outcome: Awaited<ReturnType<typeof root.writeStream>>,
  ): PutResult => {
    const path = `${OBJECTS_DIR}/${relative}`;
    switch (outcome.status) {
      case 'unchanged':
        return { hash, path, stored: false };
      case 'written':
        // Written read-only (objects are never rewritten in place), so no chmod follows the rename.
        return { hash, path, stored: true };
      case 'refused':
        throw new Error(`cannot store object ${path}: ${outcome.message}`);
      case 'would_write':
        throw new Error(`cannot store object ${path}: the writer reported a dry run`);
      case 'hash_mismatch':
        throw streamedMismatchError(hash, outcome.bytes, `sha256:${outcome.sha256}`);
    }
  };

  /** Whether the object of `hex` already holds exactly `bytes`: read and compared, so a corrupt one is rewritten. */
  const holds = async (hex: string, bytes: Uint8Array): Promise<boolean> => {
    let handle;
    try {
      // O_NONBLOCK: an object planted as a FIFO never blocks the open; the writer then refuses or replaces it.
      handle = await quickFs.open(
        absolutePathOf(hex),
        constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK,
      );
    } catch {
      // Missing, a symlink or unreadable: the confined write decides.
      return false;
    }
    try {
      const stats = await handle.stat();
      if (!stats.isFile() || stats.size !== bytes.byteLength) return false;
      return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).equals(await handle.readFile());
    } finally {
      await handle.close();
    }
  };

  /** Whether a regular file of `size` bytes is stored under `hex` (by lstat: a symlink is not an object). */
  const sized = async (hex: string, size: number): Promise<boolean> => {
    const stats = await quickFs.lstat(absolutePathOf(hex)).catch(() => undefined);
    return stats !== undefined && stats.isFile() && stats.size === size;
  };

  const put = async (bytes: Uint8Array): Promise<PutResult> => {
    const hash = contentHashOf(bytes);
    const hex = hexOf(hash);
    const relative = objectPathOf(hex);
    if (await holds(hex, bytes)) return { hash, path: `${OBJECTS_DIR}/${relative}`, stored: false };
    await sweepBeforeWriting();
    return putResult(hash, relative, await root.write(relative, bytes, { durability, readOnly: true }));
  };

  const store: ObjectStore = {
    put,
    putAll: async (contents) => {
      const hashes = contents.map((bytes) => contentHashOf(bytes));
      const distinct = new Map<string, Uint8Array>();
      contents.forEach((bytes, index) => distinct.set(hashes[index] ?? contentHashOf(bytes), bytes));
      const pending = [...distinct];
      const results = new Map<string, PutResult>();
      const batch = root.writeBatch();
      let unsynced;
      try {
        let failed = false;
        const work = async (): Promise<void> => {
          // After a failure no new write starts: the batch is failing, the rest would only fail the same way.
          for (let next = pending.shift(); next !== undefined && !failed; next = pending.shift()) {
            const [hash, bytes] = next;
            const hex = hexOf(hash);
            const relative = objectPathOf(hex);
            if (await sized(hex, bytes.byteLength)) {
              results.set(hash, { hash, path: `${OBJECTS_DIR}/${relative}`, stored: false });
              continue;
            }
            await sweepBeforeWriting();
            const written = await batch.write(relative, bytes, { durability, readOnly: true });
            results.set(hash, putResult(hash, relative, written));
          }
        };
        // Every write settles before the batch ends: one failing (ENOSPC) must not leave the others' temp files
        // behind a process that exits on the error, nor their renames unsynced.
        const settled = await Promise.allSettled(
          Array.from({ length: Math.min(WRITES_AT_ONCE, pending.length) }, () =>
            work().catch((error: unknown) => {
              failed = true;
              throw error;
            }),
          ),
        );
        const rejected = settled.find((outcome) => outcome.status === 'rejected');
        if (rejected !== undefined) throw rejected.reason;
      } finally {
        // Each folder a new object was renamed into is synced once, here, before any result is returned.
        unsynced = await batch.finish();
      }
      const failed = unsynced[0];
      if (failed !== undefined) throw failed.error;
      return hashes.map((hash) => {
        const result = results.get(hash);
        if (result === undefined) throw new Error(`object ${hash} was not stored`);
        return result;
      });
    },
    putStream: async (hash, chunks) => {
      const hex = hexOf(hash);
      const relative = objectPathOf(hex);
      await sweepBeforeWriting();
      const outcome = await root.writeStream(relative, chunks, {
        durability,
        expectedSha256: hex,
        readOnly: true,
      });
      return putResult(hash, relative, outcome);
    },
    get: async (hash) => {
      const hex = hexOf(hash);
      const bytes = await readObject(hex);
      return checkedObject(hash, bytes, bytes && contentHashOf(bytes), OBJECTS_DIR);
    },
    has: async (hash) => {
      const hex = hexOf(hash);
      try {
        return (await quickFs.lstat(absolutePathOf(hex))).isFile();
      } catch (error) {
        if (errnoOf(error) === 'ENOENT') return false;
        throw error;
      }
    },
    size: async (hash) => {
      const hex = hexOf(hash);
      try {
        const stats = await quickFs.lstat(absolutePathOf(hex));
        return stats.isFile() ? stats.size : undefined;
      } catch (error) {
        if (errnoOf(error) === 'ENOENT') return undefined;
        throw error;
      }
    },
    verify: async (hash) => {
      const bytes = await readObject(hexOf(hash));
      if (bytes === undefined) return 'missing';
      return contentHashOf(bytes) === hash ? 'ok' : 'corrupt';
    },
    close: () => root.close(),
  };
  return readOnly ? readOnlyObjects(store) : store;
}

/** A put on an object store opened read only: misuse. */
function refusePut(): Promise<never> {
  return Promise.reject(new Error('this object store was opened read only; open it without readOnly to put'));
}

/** `store` with its puts refused: a reader opened it, and a write through it is misuse. */
export function readOnlyObjects(store: ObjectStore): ObjectStore {
  return { ...store, put: refusePut, putAll: refusePut, putStream: refusePut };
}

/** The read-only objects of a project that has none: every hash missing (`where` names the store). */
function noObjects(where: string): ObjectStore {
  /** `answer`, once `hash` is known to be well formed. */
  const missing = async <T>(hash: string, answer: T): Promise<T> => {
    if (hexOfContentHash(hash) === undefined) throw malformedHashError(hash);
    return Promise.resolve(answer);
  };
  return {
    put: refusePut,
    putAll: refusePut,
    putStream: refusePut,
    get: async (hash) =>
      checkedObject(hash, await missing<Uint8Array | undefined>(hash, undefined), undefined, where),
    has: (hash) => missing(hash, false),
    size: (hash) => missing(hash, undefined),
    verify: (hash) => missing(hash, 'missing' as const),
    close: () => Promise.resolve(),
  };
}
