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
