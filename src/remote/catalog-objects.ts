import type { Pool } from 'pg';
import type { ObjectBackend } from './object-backend.js';

/** `objects: catalog`: contents kept in the catalog's `artifact_ingest_objects`, per namespace (small fleets). */
export function catalogObjects(pool: Pool, namespace: string): ObjectBackend {
  return {
    location: 'the catalog',
    get: async (hex) => {
      const { rows } = await pool.query<{ bytes: Buffer }>(
        'SELECT bytes FROM artifact_ingest_objects WHERE namespace = $1 AND hash = $2',
        [namespace, hex],
      );
      const row = rows[0];
      return row === undefined
        ? undefined
        : new Uint8Array(row.bytes.buffer, row.bytes.byteOffset, row.bytes.byteLength);
    },
    size: async (hex) => {
      const { rows } = await pool.query<{ size: number }>(
        'SELECT octet_length(bytes) AS size FROM artifact_ingest_objects WHERE namespace = $1 AND hash = $2',
        [namespace, hex],
      );
      return rows[0]?.size;
    },
    put: async (hex, bytes) => {
      await pool.query(
        `INSERT INTO artifact_ingest_objects (namespace, hash, bytes) VALUES ($1, $2, $3)
         ON CONFLICT (namespace, hash) DO UPDATE SET bytes = EXCLUDED.bytes`,
        [namespace, hex, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)],
      );
    },
    putNew: async (hex, bytes) => {
      const { rowCount } = await pool.query(
        `INSERT INTO artifact_ingest_objects (namespace, hash, bytes) VALUES ($1, $2, $3)
         ON CONFLICT (namespace, hash) DO NOTHING`,
        [namespace, hex, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)],
      );
      return (rowCount ?? 0) > 0;
    },
    probe: async () => {
      await pool.query('SELECT 1 FROM artifact_ingest_objects WHERE namespace = $1 LIMIT 1', [namespace]);
    },
    remove: async (hex) => {
      const { rowCount } = await pool.query(
        'DELETE FROM artifact_ingest_objects WHERE namespace = $1 AND hash = $2',
        [namespace, hex],
      );
      return (rowCount ?? 0) > 0;
    },
    list: async (below) => {
      if (below.length === 0) {
        const { rows } = await pool.query<{ name: string }>(
          `SELECT DISTINCT substr(hash, 1, 2) AS name FROM artifact_ingest_objects WHERE namespace = $1 ORDER BY name`,
          [namespace],
        );
        return rows.map((row) => row.name);
      }
      const folder = below[0] ?? '';
      const { rows } = await pool.query<{ name: string }>(
        `SELECT substr(hash, 3) AS name FROM artifact_ingest_objects
         WHERE namespace = $1 AND hash >= $2 AND hash < $3 ORDER BY hash`,
        [namespace, folder, `${folder}g`],
      );
      return rows.map((row) => row.name);
    },
    isEmpty: async () => {
      const { rows } = await pool.query(
        'SELECT 1 FROM artifact_ingest_objects WHERE namespace = $1 LIMIT 1',
        [namespace],
      );
      return rows.length === 0;
    },
    close: () => Promise.resolve(),
  };
}
