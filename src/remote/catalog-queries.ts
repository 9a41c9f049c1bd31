import type { Pool, PoolClient } from 'pg';

/** What runs a query: the pool (one statement, autocommit) or a client inside a transaction. */
export type Queryable = Pick<Pool, 'query'> | Pick<PoolClient, 'query'>;

/** One file's row: which file it is, its size and time. */
export interface FileRow {
  readonly version: string;
  readonly size: number;
  readonly modifiedMs: number;
}

/** The folder range of keys below `folder`: from `<folder>/` up to, not including, `<folder>0` (byte order). */
export function rangeBelow(folder: string): readonly [string, string] {
  return [`${folder}/`, `${folder}0`];
}

/** The row of the file stored under `key`, or undefined. */
export async function fileRow(db: Queryable, namespace: string, key: string): Promise<FileRow | undefined> {
  const { rows } = await db.query<{ version: string; size: string; modified_ms: string }>(
    'SELECT version, size, modified_ms FROM artifact_ingest_files WHERE namespace = $1 AND key = $2',
    [namespace, key],
  );
  const row = rows[0];
  return row === undefined
    ? undefined
    : { version: row.version, size: Number(row.size), modifiedMs: Number(row.modified_ms) };
}

/** Whether any file is stored below the folder `folder`. */
export async function hasFilesBelow(db: Queryable, namespace: string, folder: string): Promise<boolean> {
  const [from, to] = rangeBelow(folder);
  const { rows } = await db.query(
    'SELECT 1 FROM artifact_ingest_files WHERE namespace = $1 AND key >= $2 AND key < $3 LIMIT 1',
    [namespace, from, to],
  );
  return rows.length > 0;
}

/** The first of `folders` (the folders above a key) that is stored as a file, or undefined. */
export async function fileAmong(
  db: Queryable,
  namespace: string,
  folders: readonly string[],
): Promise<string | undefined> {
  if (folders.length === 0) return undefined;
  const { rows } = await db.query<{ key: string }>(
    'SELECT key FROM artifact_ingest_files WHERE namespace = $1 AND key = ANY($2::text[]) ORDER BY key LIMIT 1',
    [namespace, folders],
  );
  return rows[0]?.key;
}

/**
 * The bytes of `length` bytes of the file version `version` from offset `from` (its chunks that overlap them,
 * cut to them), or undefined when its chunks no longer cover them (the file was replaced meanwhile).
 */
export async function chunkBytes(
  db: Queryable,
  namespace: string,
  key: string,
  version: string,
  from: number,
  length: number,
): Promise<Buffer | undefined> {
  if (length === 0) return Buffer.alloc(0);
  const end = from + length;
  // The chunk holding `from` is the last one starting at or before it; the rest start before `end`.
  const { rows } = await db.query<{ start: string; bytes: Buffer }>(
    `SELECT start, bytes FROM artifact_ingest_chunks
      WHERE namespace = $1 AND key = $2 AND version = $3 AND start < $5
        AND start >= COALESCE((SELECT max(start) FROM artifact_ingest_chunks
                               WHERE namespace = $1 AND key = $2 AND version = $3 AND start <= $4), 0)
      ORDER BY start`,
    [namespace, key, version, from, end],
  );
  const parts: Buffer[] = [];
  let at = from;
  for (const row of rows) {
    const start = Number(row.start);
    if (start > at) return undefined;
    const piece = row.bytes.subarray(at - start, Math.min(row.bytes.byteLength, end - start));
    parts.push(piece);
    at += piece.byteLength;
  }
  return at === end ? Buffer.concat(parts, length) : undefined;
}

/** A key's file row, or whether a folder stands there (files below it) when no file does. */
export interface FileOrFolder {
  readonly row: FileRow | undefined;
  readonly folder: boolean;
}

/** {@link fileRow} and, when there is none, {@link hasFilesBelow}, in one statement (one round trip). */
export async function fileRowOrFolder(db: Queryable, namespace: string, key: string): Promise<FileOrFolder> {
  const [from, to] = rangeBelow(key);
  const { rows } = await db.query<{
    version: string | null;
    size: string | null;
    modified_ms: string | null;
    folder: boolean;
  }>(
    `SELECT f.version, f.size, f.modified_ms,
            f.version IS NULL AND EXISTS (
              SELECT 1 FROM artifact_ingest_files b WHERE b.namespace = $1 AND b.key >= $3 AND b.key < $4) AS folder
     FROM (SELECT 1) AS one
     LEFT JOIN artifact_ingest_files f ON f.namespace = $1 AND f.key = $2`,
    [namespace, key, from, to],
  );
  const row = rows[0];
  if (row?.version == null) return { row: undefined, folder: row?.folder === true };
  return {
    row: { version: row.version, size: Number(row.size), modifiedMs: Number(row.modified_ms) },
    folder: false,
  };
}

/**
 * A whole file in one statement (one snapshot): its row, whether a folder stands there instead, and its bytes
 * (undefined when it holds more than `maxBytes`, which are then not fetched).
 */
export async function wholeFile(
  db: Queryable,
  namespace: string,
  key: string,
  maxBytes: number | undefined,
): Promise<FileOrFolder & { readonly bytes: Buffer | undefined }> {
  const [from, to] = rangeBelow(key);
  const { rows } = await db.query<{
    version: string | null;
    size: string | null;
    modified_ms: string | null;
    folder: boolean;
    start: string | null;
    bytes: Buffer | null;
  }>(
    `SELECT f.version, f.size, f.modified_ms, c.start, c.bytes,
            f.version IS NULL AND EXISTS (
              SELECT 1 FROM artifact_ingest_files b WHERE b.namespace = $1 AND b.key >= $3 AND b.key < $4) AS folder
     FROM (SELECT 1) AS one
     LEFT JOIN artifact_ingest_files f ON f.namespace = $1 AND f.key = $2
     LEFT JOIN artifact_ingest_chunks c
       ON c.namespace = $1 AND c.key = $2 AND c.version = f.version AND ($5::bigint IS NULL OR f.size <= $5::bigint)
     ORDER BY c.start`,
    [namespace, key, from, to, maxBytes ?? null],
  );
  const first = rows[0];
  if (first?.version == null) return { row: undefined, folder: first?.folder === true, bytes: undefined };
  const row: FileRow = {
    version: first.version,
    size: Number(first.size),
    modifiedMs: Number(first.modified_ms),
  };
  if (maxBytes !== undefined && row.size > maxBytes) return { row, folder: false, bytes: undefined };
  const parts: Buffer[] = [];
  let at = 0;
  for (const chunk of rows) {
    if (chunk.bytes === null || chunk.start === null) continue;
    if (Number(chunk.start) !== at)
      throw new Error(`the catalog's chunks of ${key} do not join up at byte ${String(at)}`);
    parts.push(chunk.bytes);
    at += chunk.bytes.byteLength;
  }
  if (at !== row.size)
    throw new Error(`the catalog's chunks of ${key} hold ${String(at)} of its ${String(row.size)} bytes`);
  return { row, folder: false, bytes: Buffer.concat(parts, at) };
}
