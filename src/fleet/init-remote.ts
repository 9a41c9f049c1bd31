import { catalogFailure, initCatalog, openCatalogPool } from '../remote/index.js';
import type { CatalogInit, RemoteStoreSettings } from '../remote/index.js';

/**
 * `remote init`: creates or migrates the catalog's schema to this package's version (safe when many machines run
 * it at once: the migrations run under an advisory lock). Throws {@link RemoteError} naming the catalog without
 * its password: `unreachable`, `schema_too_new`, or `remote_failed` (a role without CREATE, say).
 */
export async function initRemote(
  settings: RemoteStoreSettings,
  options: { readonly connectTimeoutMs?: number } = {},
): Promise<CatalogInit> {
  const pool = openCatalogPool(settings, {
    maxConnections: 1,
    connectTimeoutMs: options.connectTimeoutMs ?? 10_000,
  });
  try {
    return await initCatalog(pool);
  } catch (error) {
    throw catalogFailure(settings, error);
  } finally {
    await pool.end().catch(() => undefined);
  }
}
