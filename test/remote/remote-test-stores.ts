import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { catalogStore, initCatalog, openCatalogPool, openObjectBackend } from '../../src/remote/index.js';
import type { RemoteStoreSettings } from '../../src/remote/index.js';
import type { ProjectStore } from '../../src/store/index.js';
import type { S3Server } from '../helpers/s3-server.js';
import type { TestPostgres } from '../helpers/use-postgres.js';

/** A fresh database of the run's PostgreSQL with the catalog's schema made; its URL. */
export async function freshCatalog(postgres: TestPostgres): Promise<string> {
  const url = await postgres.createDatabase();
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  try {
    await initCatalog(pool);
  } finally {
    await pool.end();
  }
  return url;
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

/**
 * Settings of a remote on `catalog` with objects in bucket `bucket` of the s3rver `s3` under a prefix of their own
 * (the client reads the server's credentials from the environment the caller sets: see {@link withS3Credentials}).
 */
export function s3Settings(catalog: string, s3: S3Server, bucket: string): RemoteStoreSettings {
  return {
    project: `test/${randomBytes(4).toString('hex')}`,
    catalog,
    objects: { kind: 's3', bucket, prefix: `p-${randomBytes(4).toString('hex')}` },
    s3: { endpoint: s3.endpoint, region: s3.region, forcePathStyle: true, checksums: 'when_required' },
  };
}

/** Sets the AWS SDK's credentials to the s3rver's for this process (its tests only talk to that server). */
export function withS3Credentials(s3: S3Server): void {
  process.env['AWS_ACCESS_KEY_ID'] = s3.credentials.accessKeyId;
  process.env['AWS_SECRET_ACCESS_KEY'] = s3.credentials.secretAccessKey;
  process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] = 'true';
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
