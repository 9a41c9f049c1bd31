import { createHash } from 'node:crypto';
import type { Pool, PoolClient } from 'pg';
import { AGENT_DIR, describeError, mapLimit, OBJECTS_DIR } from '../project/index.js';
import {
  bytesToRead,
  contentHashOf,
  hexOfContentHash,
  objectPathOf,
  checkKeyBelow,
  checkReadRange,
  objectsAtKeys,
  readOnlyObjects,
  StoreError,
  storeKeyComponents,
} from '../store/index.js';
import type {
  FolderDraft,
  LineAppender,
  ObjectStore,
  ProjectStore,
  PutResult,
  StoredFileInfo,
  StoreEntry,
  StoredTail,
} from '../store/index.js';
import {
  chunkBytes,
  fileAmong,
  fileRow,
  fileRowOrFolder,
  hasFilesBelow,
  rangeBelow,
  wholeFile,
} from './catalog-queries.js';
import type { Queryable } from './catalog-queries.js';
import type { ObjectBackend } from './object-backend.js';
import { objectKeys } from './object-keys.js';

/** What {@link catalogStore} keeps a namespace in. */
export interface CatalogStoreOptions {
  /** The catalog's connections (the store ends the pool when it closes). */
  readonly pool: Pool;
  /** `remote.project`: the namespace every key of this store lives in. */
  readonly namespace: string;
  /** Where contents are kept: an S3-compatible bucket or the catalog's own table. */
  readonly objects: ObjectBackend;
  /** What messages name for the store (the catalog's URL without its password, and the namespace). */
  readonly location: string;
}

/** How many times a read looks again when the file was replaced between its size and its bytes. */
const READ_ATTEMPTS = 5;
/** Objects stored at once by `putAll` (each one conditional write: a round trip to the object backend). */
const PUT_CONCURRENCY = 8;

/**
 * A write's checks as common table expressions of the write's own statement (D117: one round trip per write, not
 * three): `blocked`, the first of the key's folders (`$6`) stored as a file; `below`, a file below the key (its
 * range `$7`..`$8`); `ok`, neither. The write inserts `FROM ok WHERE ok.ok`.
 */
const WRITE_CHECKS = `blocked AS (
         SELECT key FROM artifact_ingest_files WHERE namespace = $1 AND key = ANY($6::text[]) ORDER BY key LIMIT 1),
       below AS (
         SELECT 1 FROM artifact_ingest_files WHERE namespace = $1 AND key >= $7 AND key < $8 LIMIT 1),
       ok AS (SELECT NOT EXISTS (SELECT 1 FROM blocked) AND NOT EXISTS (SELECT 1 FROM below) AS ok)`;
/** What a checked write's statement selects last: why it was refused, if it was. */
const WRITE_VERDICT = `(SELECT key FROM blocked) AS blocked, EXISTS (SELECT 1 FROM below) AS folder`;

/**
 * The remote implementation of the storage port (spec storage.md, Part 2): every key of a namespace is a row of
 * `artifact_ingest_files` and its bytes rows of `artifact_ingest_chunks` (a replace is one chunk, an append one
 * more), each write one statement or one transaction, so a reader sees a file before or after a write, never
 * part of one; keys below `.agent/objects/` are the contents in the object backend, verified by hash when read
 * as objects. Appends to one file are serialised by its row's lock, so concurrent writers on many machines never
 * split or lose each other's lines.
 */
export function catalogStore(options: CatalogStoreOptions): ProjectStore {
  const { pool, namespace, objects: backend, location } = options;
  const objectArea = objectKeys(backend, location);

  const refused = (key: string, why: string): StoreError =>
    new StoreError({ code: 'write_refused', key, message: `${location}: cannot write ${key}: ${why}` });

  const notAFile = (key: string): StoreError =>
    new StoreError({ code: 'not_a_file', key, message: `${location}: ${key} is a folder, not a file` });

  /** The folders above `key` (`.agent/a`, `.agent/a/b` for `.agent/a/b/c`). */
  const foldersAbove = (key: string): string[] => {
    const components = storeKeyComponents(key);
    return components
      .slice(0, -1)
      .map((_, depth) => [AGENT_DIR, ...components.slice(0, depth + 1)].join('/'));
  };

  /** The parameters `$6`..`$8` of {@link WRITE_CHECKS} for a write of `key`. */
  const checkParams = (key: string): unknown[] => [foldersAbove(key), ...rangeBelow(key)];

  /** Throws `write_refused` for what a checked write's statement found in its way (nothing written then). */
  const checkVerdict = (
    key: string,
    verdict: { blocked: string | null; folder: boolean } | undefined,
  ): void => {
    if (verdict?.blocked != null) throw refused(key, `${verdict.blocked} is a file, not a folder`);
    if (verdict?.folder === true) throw refused(key, 'it is a folder');
  };

  /** Throws `write_refused` when a file stands where one of the key's folders goes, or a folder at the key. */
  const checkWritable = async (db: Queryable, key: string): Promise<void> => {
    const file = await fileAmong(db, namespace, foldersAbove(key));
    if (file !== undefined) throw refused(key, `${file} is a file, not a folder`);
    if (await hasFilesBelow(db, namespace, key)) throw refused(key, 'it is a folder');
  };

  /** The row of `key`, or undefined when no file is there; throws `not_a_file` for a folder (one query). */
  const rowOf = async (key: string) => {
    storeKeyComponents(key);
    const { row, folder } = await fileRowOrFolder(pool, namespace, key);
    if (folder) throw notAFile(key);
    return row;
  };

  /** The whole file under `key` with its row, in one statement (one snapshot: never half of a replace). */
  const readWhole = async (key: string, maxBytes?: number) => {
    storeKeyComponents(key);
    const { row, folder, bytes } = await wholeFile(pool, namespace, key, maxBytes);
    if (folder) throw notAFile(key);
    if (row === undefined) return undefined;
    if (bytes === undefined) {
      throw new StoreError({
        code: 'too_large',
        key,
        message: `${location}: ${key} holds ${String(row.size)} bytes, more than the ${String(maxBytes ?? 0)} this read takes`,
      });
    }
    return { row, bytes };
  };

  const read: ProjectStore['read'] = async (key, readOptions = {}) => {
    if (objectArea.owns(key)) return objectArea.read(key, readOptions.maxBytes);
    return (await readWhole(key, readOptions.maxBytes))?.bytes;
  };

  /**
   * Runs one write of `bytes` under `key` as one statement: the files row upserted (`set` on a conflict, `returning`
   * what `chunks` reads of it as `f`), then the common table expressions `chunks` of its chunks; with `checked` the
   * place checks go before them (the upsert runs only when they found nothing) and their verdict is thrown after.
   * Parameters: $1 namespace, $2 key, $3 size, $4 time, $5 bytes.
   */
  const runWrite = async (
    db: Queryable,
    key: string,
    bytes: Uint8Array,
    checked: boolean,
    write: { readonly set: string; readonly returning: string; readonly chunks: string },
  ): Promise<void> => {
    const { rows } = await db.query<{ blocked: string | null; folder: boolean }>(
      `WITH ${checked ? `${WRITE_CHECKS},` : ''}
       f AS (
         INSERT INTO artifact_ingest_files (namespace, key, version, size, modified_ms)
         SELECT $1::text, $2::text, nextval('artifact_ingest_file_version'), $3::bigint, $4::bigint ${checked ? 'FROM ok WHERE ok.ok' : ''}
         ON CONFLICT (namespace, key) DO UPDATE SET ${write.set}
         RETURNING ${write.returning}),
       ${write.chunks}
       SELECT ${checked ? WRITE_VERDICT : 'NULL AS blocked, false AS folder'}`,
      [
        namespace,
        key,
        bytes.byteLength,
        Date.now(),
        Buffer.from(bytes),
        ...(checked ? checkParams(key) : []),
      ],
    );
    if (checked) checkVerdict(key, rows[0]);
  };

  /**
   * Appends `bytes` to `key` (one statement: the file row's lock orders concurrent appends); `checked`: the write's
   * checks in the same statement, refused with `write_refused` (a transaction's fill checked its folder instead).
   */
  const appendBytes = (db: Queryable, key: string, bytes: Uint8Array, checked = false): Promise<void> =>
    runWrite(db, key, bytes, checked, {
      set: 'size = artifact_ingest_files.size + EXCLUDED.size, modified_ms = EXCLUDED.modified_ms',
      returning: 'version, size - $3 AS start',
      chunks: `c AS (
         INSERT INTO artifact_ingest_chunks (namespace, key, version, start, bytes)
         SELECT $1, $2, version, start, $5 FROM f WHERE $3 > 0)`,
    });

  /** Stores `bytes` as the whole new file under `key`; its old chunks go in the same statement (`checked`: as above). */
  const replaceBytes = (db: Queryable, key: string, bytes: Uint8Array, checked = false): Promise<void> =>
    runWrite(db, key, bytes, checked, {
      set: 'version = EXCLUDED.version, size = EXCLUDED.size, modified_ms = EXCLUDED.modified_ms',
      returning: 'version',
      chunks: `gone AS (
         DELETE FROM artifact_ingest_chunks c USING f
         WHERE c.namespace = $1 AND c.key = $2 AND c.version <> f.version),
       c AS (
         INSERT INTO artifact_ingest_chunks (namespace, key, version, start, bytes)
         SELECT $1, $2, version, 0, $5 FROM f WHERE $3 > 0)`,
    });

  /** Removes the file under `key` (only while it is still the file `version`, when given); whether one went. */
  const removeFile = async (db: Queryable, key: string, version?: string): Promise<boolean> => {
    const { rows } = await db.query<{ removed: number }>(
      `WITH f AS (
         DELETE FROM artifact_ingest_files
         WHERE namespace = $1 AND key = $2 AND ($3::bigint IS NULL OR version = $3::bigint)
         RETURNING version),
       gone AS (
         DELETE FROM artifact_ingest_chunks c USING f WHERE c.namespace = $1 AND c.key = $2)
       SELECT count(*)::int AS removed FROM f`,
      [namespace, key, version ?? null],
    );
    return (rows[0]?.removed ?? 0) > 0;
  };

  /** Removes `key` when it still holds exactly `content`; whether it did. */
  const removeHolding = async (key: string, content: string): Promise<boolean> => {
    storeKeyComponents(key);
    if (objectArea.owns(key)) return false;
    const expected = Buffer.from(content, 'utf8');
    const { row, bytes } = await wholeFile(pool, namespace, key, expected.byteLength);
    if (row === undefined || bytes === undefined || !bytes.equals(expected)) return false;
    return removeFile(pool, key, row.version);
  };

  const list = async (folder: string): Promise<StoreEntry[]> => {
    storeKeyComponents(folder, { folder: true });
    if (objectArea.owns(folder)) return objectArea.list(folder);
    const [from, to] = rangeBelow(folder);
    // A loose scan of the primary key: one probe per entry, each folder's keys skipped in one step.
    const { rows } = await pool.query<{ key: string }>(
      `WITH RECURSIVE entries(key) AS (
         (SELECT key FROM artifact_ingest_files
          WHERE namespace = $1 AND key >= $2 AND key < $3 ORDER BY key LIMIT 1)
         UNION ALL
         SELECT (SELECT f.key FROM artifact_ingest_files f
                 WHERE f.namespace = $1 AND f.key < $3 AND f.key >= CASE
                   WHEN strpos(substr(e.key, $4), '/') > 0
                   THEN $2 || split_part(substr(e.key, $4), '/', 1) || '0'
                   ELSE e.key || chr(1) END
                 ORDER BY f.key LIMIT 1)
         FROM entries e WHERE e.key IS NOT NULL)
       SELECT key FROM entries WHERE key IS NOT NULL`,
      [namespace, from, to, from.length + 1],
    );
    const entries = new Map<string, StoreEntry['kind']>();
    for (const { key } of rows) {
      const rest = key.slice(from.length);
      const slash = rest.indexOf('/');
      entries.set(slash === -1 ? rest : rest.slice(0, slash), slash === -1 ? 'file' : 'folder');
    }
    if (folder === AGENT_DIR && !(await backend.isEmpty())) entries.set(objectArea.top, 'folder');
    return [...entries]
      .map(([name, kind]): StoreEntry => ({ name, kind }))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  };

  /** Runs `body` in one transaction on one connection: all of its writes land, or none. */
  const transaction = async <T>(body: (client: PoolClient) => Promise<T>): Promise<T> => {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const answer = await body(client);
      await client.query('COMMIT');
      return answer;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  };

  /** Refuses a folder to be replaced or created where a file stands at it or above it. */
  const checkFolderPlace = async (db: Queryable, folder: string): Promise<void> => {
    const components = storeKeyComponents(folder);
    const atOrAbove = components.map((_, depth) => [AGENT_DIR, ...components.slice(0, depth + 1)].join('/'));
    const file = await fileAmong(db, namespace, atOrAbove);
    if (file !== undefined) throw refused(folder, `${file} is a file, not a folder`);
  };

  /** A fill's write: a key below `folder`, stored whole in the transaction. */
  const writeBelow = (client: PoolClient, folder: string, caller: string) => {
    return async (key: string, content: Uint8Array | string): Promise<void> => {
      checkKeyBelow(folder, key, caller);
      await replaceBytes(client, key, typeof content === 'string' ? Buffer.from(content, 'utf8') : content);
    };
  };

  const info = async (key: string): Promise<StoredFileInfo | undefined> => {
    if (objectArea.owns(key)) return objectArea.info(key);
    const row = await rowOf(key);
    return row === undefined ? undefined : { size: row.size, modifiedMs: row.modifiedMs };
  };

  const readFrom = async (key: string, from: number, length?: number): Promise<StoredTail | undefined> => {
    checkReadRange(from, length);
    if (objectArea.owns(key)) return objectArea.readFrom(key, from, length);
    for (let attempt = 0; attempt < READ_ATTEMPTS; attempt++) {
      const row = await rowOf(key);
      if (row === undefined) return undefined;
      const start = Math.min(from, row.size);
      const count = Math.min(length ?? row.size, row.size - start);
      const bytes = await chunkBytes(pool, namespace, key, row.version, start, count);
      if (bytes !== undefined) return { bytes: new Uint8Array(bytes), size: row.size, version: row.version };
    }
    throw new Error(`${location}: ${key} kept changing while it was read; try again`);
  };

  const store: ProjectStore = {
    kind: 'remote',
    location,
    read,
    readText: async (key, readOptions) => {
      const bytes = await read(key, readOptions);
      return bytes === undefined ? undefined : Buffer.from(bytes).toString('utf8');
    },
    info,
    list,
    replace: async (key, content) => {
      const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
      if (objectArea.owns(key)) return objectArea.replace(key, bytes);
      await replaceBytes(pool, key, bytes, true);
    },
    append: async (key, lines) => {
      if (lines !== '' && !lines.endsWith('\n')) {
        throw new Error(`append: text for ${key} must end with a newline`);
      }
      if (objectArea.owns(key)) throw refused(key, 'objects are stored whole, never appended to');
      await appendBytes(pool, key, Buffer.from(lines, 'utf8'), true);
    },
    remove: async (key) => {
      if (objectArea.owns(key)) return objectArea.remove(key);
      await checkWritable(pool, key);
      return removeFile(pool, key);
    },
    createExclusive: async (key, content) => {
      if (objectArea.owns(key)) throw refused(key, 'objects are stored by their hash');
      const bytes = Buffer.from(content, 'utf8');
      const { rows } = await pool.query<{ made: number; blocked: string | null; folder: boolean }>(
        `WITH ${WRITE_CHECKS},
         f AS (
           INSERT INTO artifact_ingest_files (namespace, key, version, size, modified_ms)
           SELECT $1::text, $2::text, nextval('artifact_ingest_file_version'), $3::bigint, $4::bigint FROM ok WHERE ok.ok
           ON CONFLICT (namespace, key) DO NOTHING
           RETURNING version),
         c AS (
           INSERT INTO artifact_ingest_chunks (namespace, key, version, start, bytes)
           SELECT $1, $2, version, 0, $5 FROM f WHERE $3 > 0)
         SELECT (SELECT count(*)::int FROM f) AS made, ${WRITE_VERDICT}`,
        [namespace, key, bytes.byteLength, Date.now(), bytes, ...checkParams(key)],
      );
      checkVerdict(key, rows[0]);
      return (rows[0]?.made ?? 0) > 0;
    },
    removeIfHolds: async (key, content) => {
      await removeHolding(key, content).catch(() => false);
    },
    removeStale: (key, staleContent) => removeHolding(key, staleContent),
    openReader: async (key) => {
      if (objectArea.owns(key)) return objectArea.openReader(key);
      const row = await rowOf(key);
      if (row === undefined) return undefined;
      let closed = false;
      return {
        size: row.size,
        read: async (position: number, length: number) => {
          if (closed) throw new Error('the reader is closed');
          const count = bytesToRead(row.size, position, length);
          const bytes = await chunkBytes(pool, namespace, key, row.version, position, count);
          if (bytes === undefined) throw new Error(`${location}: ${key} was replaced while it was read`);
          return new Uint8Array(bytes);
        },
        close: () => {
          closed = true;
          return Promise.resolve();
        },
      };
    },
    readFrom,
    replaceFolder: async (folder, fill) => {
      storeKeyComponents(folder);
      return transaction(async (client) => {
        await checkFolderPlace(client, folder);
        const [from, to] = rangeBelow(folder);
        // Invisible to readers until the commit: they see the old files until the new ones are all in place.
        await client.query(
          `WITH f AS (DELETE FROM artifact_ingest_files
                      WHERE namespace = $1 AND key >= $2 AND key < $3 RETURNING key)
           DELETE FROM artifact_ingest_chunks WHERE namespace = $1 AND key >= $2 AND key < $3`,
          [namespace, from, to],
        );
        return fill({ write: writeBelow(client, folder, 'replaceFolder') });
      });
    },
    createFolder: async (folder, fill) => {
      storeKeyComponents(folder);
      return transaction(async (client) => {
        // Two creators of one folder: the second waits here and then finds it.
        await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`${namespace}\n${folder}`]);
        const exists =
          (await fileRow(client, namespace, folder)) !== undefined ||
          (await hasFilesBelow(client, namespace, folder));
        if (exists) return { status: 'exists' as const };
        await checkFolderPlace(client, folder);
        const write = writeBelow(client, folder, 'createFolder');
        const draft: FolderDraft = {
          write,
          writeStream: async (key, chunks, expectedSha256) => {
            checkKeyBelow(folder, key, 'createFolder');
            await client.query('SAVEPOINT stream');
            const hash = createHash('sha256');
            await replaceBytes(client, key, new Uint8Array());
            for await (const chunk of chunks) {
              hash.update(chunk);
              await appendBytes(client, key, chunk);
            }
            if (hash.digest('hex') === expectedSha256) {
              await client.query('RELEASE SAVEPOINT stream');
              return true;
            }
            await client.query('ROLLBACK TO SAVEPOINT stream');
            return false;
          },
          makeFolder: (key) => {
            checkKeyBelow(folder, key, 'createFolder');
            // A catalog folder exists while a file below it does: an empty one is not kept.
            return Promise.resolve();
          },
        };
        const filled = await fill(draft);
        return { status: 'created' as const, filled };
      });
    },
    // Nothing to keep open between calls: the pool keeps its connections.
    openSession: () => Promise.resolve({ ...store, close: () => Promise.resolve() }),
    openAppender: async (key) => {
      if (objectArea.owns(key)) throw refused(key, 'objects are stored whole, never appended to');
      await checkWritable(pool, key);
      return serialAppender((lines) => appendBytes(pool, key, Buffer.from(lines, 'utf8')));
    },
    openObjects: (objectOptions = {}) => {
      const keyed = objectsAtKeys(
        (key) => objectArea.read(key),
        (key, bytes) => objectArea.replace(key, bytes),
        location,
      );
      /** The object's key, or undefined for a malformed hash (the keyed store's calls then throw its error). */
      const keyOfHash = (hash: string): string | undefined => {
        const hex = hexOfContentHash(hash);
        return hex === undefined ? undefined : `${OBJECTS_DIR}/${objectPathOf(hex)}`;
      };
      // A new object is one conditional write (S3's If-None-Match, ON CONFLICT DO NOTHING): no look-up first. One
      // already there is read and compared (healed when it holds other bytes), as the keyed store does (D119).
      const put = async (bytes: Uint8Array): Promise<PutResult> => {
        const hash = contentHashOf(bytes);
        const hex = hexOfContentHash(hash);
        if (hex === undefined || !(await backend.putNew(hex, bytes))) return keyed.put(bytes);
        return { hash, path: `${OBJECTS_DIR}/${objectPathOf(hex)}`, stored: true };
      };
      const objects: ObjectStore = {
        ...keyed,
        put,
        putAll: (contents) => mapLimit(contents, PUT_CONCURRENCY, put),
        has: async (hash) => {
          const key = keyOfHash(hash);
          return key === undefined ? keyed.has(hash) : (await objectArea.info(key)) !== undefined;
        },
        size: async (hash) => {
          const key = keyOfHash(hash);
          return key === undefined ? keyed.size(hash) : (await objectArea.info(key))?.size;
        },
      };
      return Promise.resolve(objectOptions.readOnly === true ? readOnlyObjects(objects) : objects);
    },
    close: async () => {
      await backend.close();
      await pool.end();
    },
  };
  return store;
}

/**
 * A line appender over a remote: each `write` is queued behind the ones before it (one statement each, in
 * order); a failed write is thrown by the next `write` or by `sync`, and `sync` waits for every write so far.
 */
function serialAppender(appendLines: (lines: string) => Promise<void>): LineAppender {
  let chain: Promise<void> = Promise.resolve();
  let failure: unknown;
  let closed = false;
  const rethrow = (): void => {
    if (failure === undefined) return;
    const error = failure;
    failure = undefined;
    throw error instanceof Error ? error : new Error(describeError(error));
  };
  return {
    write: (lines) => {
      if (closed) throw new Error('the appender is closed');
      rethrow();
      chain = chain
        .then(() => appendLines(lines))
        .catch((error: unknown) => {
          failure ??= error;
        });
    },
    sync: async () => {
      await chain;
      rethrow();
    },
    close: async () => {
      closed = true;
      await chain;
    },
  };
}
