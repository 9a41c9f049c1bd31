import { hostname } from 'node:os';
import type * as Pg from 'pg';
import type { Pool } from 'pg';
import type { RemoteSettings } from '../config/index.js';
import { describeError, lazyModule } from '../project/index.js';
import type { ProjectStore } from '../store/index.js';
import { catalogFailure } from './catalog-failure.js';
import { catalogObjects } from './catalog-objects.js';
import { checkCatalogSchema } from './catalog-schema.js';
import { catalogStore } from './catalog-store.js';
import type { ObjectBackend } from './object-backend.js';
import { RemoteError } from './remote-error.js';
import { s3Objects } from './s3-objects.js';

/** `pg`, loaded the first time a remote is opened (D111): a project without a remote never loads it. */
const loadPg = lazyModule<typeof Pg>('pg');

/** The remote a store opens: `remote:` of the config, the environment's overrides applied. */
export type RemoteStoreSettings = RemoteSettings;

/** How {@link openRemoteStore} connects. */
export interface OpenRemoteOptions {
  /** Give up on a connection after this long (default 10 s): an unreachable remote fails fast. */
  readonly connectTimeoutMs?: number;
  /** Connections kept open at most (default 4). */
  readonly maxConnections?: number;
  /**
   * Skip the checks of an open: the catalog's schema, and one listing of the object store (a missing bucket or
   * refused credentials fail the open, not a push halfway). For `remote init` and `remote status`, which look
   * at both themselves.
   */
  readonly checkSchema?: boolean;
}

/** The catalog URL as messages show it: no password, ever. */
export function catalogLocation(catalog: string): string {
  try {
    const url = new URL(catalog);
    url.password = '';
    url.search = '';
    return url.toString();
  } catch {
    return 'the catalog';
  }
}

/** A pool of connections to the catalog; its idle connections' errors are kept from crashing the process. */
export function openCatalogPool(settings: RemoteStoreSettings, options: OpenRemoteOptions = {}): Pool {
  const pg = loadPg();
  const pool = new pg.Pool({
    connectionString: settings.catalog,
    max: options.maxConnections ?? 4,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 10_000,
    idleTimeoutMillis: 10_000,
    application_name: `artifact-ingest@${hostname()}`,
  });
  // A connection the server drops while idle is replaced by the next query; it must not end the process.
  pool.on('error', () => undefined);
  return pool;
}

/** `unreachable` for a catalog that could not be reached or logged into, naming it without its password. */
export function catalogUnreachable(settings: RemoteStoreSettings, error: unknown): RemoteError {
  return new RemoteError({
    code: 'unreachable',
    part: 'catalog',
    message: `the catalog ${catalogLocation(settings.catalog)} could not be reached: ${describeError(error)}; check remote.catalog, the network and the PG* environment (PGPASSWORD, PGSSLMODE, ...)`,
    cause: error,
  });
}

/** The object backend `remote.objects` names. */
export function openObjectBackend(settings: RemoteStoreSettings, pool: Pool): ObjectBackend {
  return settings.objects.kind === 'catalog'
    ? catalogObjects(pool, settings.project)
    : s3Objects({ ...settings.objects, ...settings.s3 });
}

/**
 * Opens the remote as a store of the port: the PostgreSQL catalog (its schema checked: none or an older one asks
 * for `remote init`, a newer one is refused) and the object store `remote.objects` names (reached once: a missing
 * bucket is `bucket_missing`). Throws {@link RemoteError} `unreachable` when the catalog does not answer.
 */
export async function openRemoteStore(
  settings: RemoteStoreSettings,
  options: OpenRemoteOptions = {},
): Promise<ProjectStore> {
  const pool = openCatalogPool(settings, options);
  try {
    if (options.checkSchema !== false) {
      try {
        await checkCatalogSchema(pool);
      } catch (error) {
        if (error instanceof RemoteError) throw error;
        throw catalogUnreachable(settings, error);
      }
    }
    const objects = openObjectBackend(settings, pool);
    if (options.checkSchema !== false) {
      try {
        await objects.probe();
      } catch (error) {
        throw catalogFailure(settings, error);
      }
    }
    return catalogStore({
      pool,
      namespace: settings.project,
      objects,
      location: `${catalogLocation(settings.catalog)} (project ${settings.project}, objects in ${objects.location})`,
    });
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw error;
  }
}
