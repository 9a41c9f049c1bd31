import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { catalogStore, initCatalog, openCatalogPool, openObjectBackend } from '../../src/remote/index.js';
import type { RemoteStoreSettings } from '../../src/remote/index.js';
import type { ProjectStore } from '../../src/store/index.js';

/** A fresh database on the test server, its catalog schema made; the URL to reach it. */
export async function freshCatalog(serverUrl: string): Promise<string> {
  const name = `t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const pool = new pg.Pool({ connectionString: url.toString(), max: 1 });
  try {
    await initCatalog(pool);
  } finally {
    await pool.end();
  }
  return url.toString();
}

/** Settings of a remote on `catalog` with objects in the catalog, in a namespace of its own. */
export function catalogSettings(
  catalog: string,
  project = `test/${randomBytes(4).toString('hex')}`,
): RemoteStoreSettings {
  return {
    project,
    catalog,
    objects: { kind: 'catalog' },
    s3: { endpoint: undefined, region: undefined, forcePathStyle: true, checksums: 'when_required' },
  };
}

/** A remote store of `settings` (schema not checked: the tests made it). */
export function remoteStoreOf(settings: RemoteStoreSettings): ProjectStore {
  const pool = openCatalogPool(settings, { maxConnections: 6 });
  return catalogStore({
    pool,
    namespace: settings.project,
    objects: openObjectBackend(settings, pool),
    location: `test catalog (project ${settings.project})`,
  });
}
