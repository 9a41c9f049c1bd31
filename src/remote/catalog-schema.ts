import type { Pool } from 'pg';
import { CATALOG_MIGRATIONS, CATALOG_SCHEMA_VERSION } from './catalog-migrations.js';
import { RemoteError } from './remote-error.js';

/** Any number, the same on every machine: `remote init`s of one catalog wait for each other on it. */
const INIT_LOCK = 0x61727469; // "arti"

/** What `remote init` did: the schema version before (0: none) and after. */
export interface CatalogInit {
  readonly from: number;
  readonly to: number;
}

/** Whether a PostgreSQL error says a table is missing (SQLSTATE 42P01). */
function isUndefinedTable(error: unknown): boolean {
  return (error as { code?: unknown }).code === '42P01';
}

/**
 * Creates or migrates the catalog's schema to this package's version: each migration not yet applied, in order,
 * in one transaction that holds an advisory lock, so machines running it at once apply each migration once and
 * the others find it done. A catalog newer than the package is refused (`schema_too_new`), changing nothing.
 */
export async function initCatalog(pool: Pool): Promise<CatalogInit> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock($1)', [INIT_LOCK]);
    await client.query(
      `CREATE TABLE IF NOT EXISTS artifact_ingest_schema (
         version integer PRIMARY KEY,
         applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    const from = await appliedVersion(client);
    if (from > CATALOG_SCHEMA_VERSION) throw tooNew(from);
    for (const migration of CATALOG_MIGRATIONS) {
      if (migration.version <= from) continue;
      await client.query(migration.sql);
      await client.query('INSERT INTO artifact_ingest_schema (version) VALUES ($1)', [migration.version]);
    }
    await client.query('COMMIT');
    return { from, to: Math.max(from, CATALOG_SCHEMA_VERSION) };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

/** The catalog's schema version: 0 when it has none of ours. */
export async function catalogVersion(pool: Pick<Pool, 'query'>): Promise<number> {
  try {
    return await appliedVersion(pool);
  } catch (error) {
    if (isUndefinedTable(error)) return 0;
    throw error;
  }
}

/** Refuses a catalog this package cannot use: none or an older schema (`schema_missing`), a newer one. */
export async function checkCatalogSchema(pool: Pick<Pool, 'query'>): Promise<number> {
  const version = await catalogVersion(pool);
  if (version > CATALOG_SCHEMA_VERSION) throw tooNew(version);
  if (version < CATALOG_SCHEMA_VERSION) {
    throw new RemoteError({
      code: 'schema_missing',
      part: 'catalog',
      message:
        version === 0
          ? "the catalog has no artifact-ingest schema yet; run 'artifact-ingest remote init' once to create it"
          : `the catalog's schema is version ${String(version)} and this package uses ${String(CATALOG_SCHEMA_VERSION)}; run 'artifact-ingest remote init' to migrate it`,
    });
  }
  return version;
}

async function appliedVersion(db: Pick<Pool, 'query'>): Promise<number> {
  const { rows } = await db.query<{ version: number | null }>(
    'SELECT max(version) AS version FROM artifact_ingest_schema',
  );
  return rows[0]?.version ?? 0;
}

function tooNew(version: number): RemoteError {
  return new RemoteError({
    code: 'schema_too_new',
    part: 'catalog',
    message: `the catalog's schema is version ${String(version)}, newer than the ${String(CATALOG_SCHEMA_VERSION)} this package knows; upgrade artifact-ingest on this machine`,
  });
}
