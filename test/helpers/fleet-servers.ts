import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { initCatalog } from '../../src/remote/index.js';
import type { RemoteStoreSettings } from '../../src/remote/index.js';
import { findPostgresBinaries, startPostgresServer } from './postgres-server.js';
import type { PostgresServer } from './postgres-server.js';
import { startS3Server } from './s3-server.js';
import type { ConditionalWrites, S3Server } from './s3-server.js';

/**
 * The remote's two servers for the bench and the stress run (outside vitest): a PostgreSQL started here from
 * Debian's binaries and an s3rver with one bucket, the AWS SDK's credentials set to the s3rver's in this process
 * (and so in the children it starts).
 */
export interface FleetServers {
  readonly postgres: PostgresServer;
  readonly s3: S3Server;
  readonly bucket: string;
  /** A fresh database with the catalog's schema; its URL. */
  freshCatalog(): Promise<string>;
  /** Settings of a remote on `catalog`, objects in the bucket under a prefix of their own, a namespace of its own. */
  settings(catalog: string, name?: string): RemoteStoreSettings;
  stop(): Promise<void>;
}

/** Starts both servers, or says in one line why there is no PostgreSQL. */
export async function startFleetServers(
  options: { readonly conditionalWrites?: ConditionalWrites } = {},
): Promise<FleetServers | string> {
  const binaries = await findPostgresBinaries();
  if (binaries === undefined) return 'no initdb/pg_ctl found (apt-get install postgresql)';
  let postgres: PostgresServer;
  try {
    postgres = await startPostgresServer(binaries);
  } catch (error) {
    return `PostgreSQL did not start: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`;
  }
  const s3 = await startS3Server(options);
  const bucket = 'fleet';
  await s3.createBucket(bucket);
  process.env['AWS_ACCESS_KEY_ID'] = s3.credentials.accessKeyId;
  process.env['AWS_SECRET_ACCESS_KEY'] = s3.credentials.secretAccessKey;
  process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] = 'true';
  let databases = 0;
  return {
    postgres,
    s3,
    bucket,
    async freshCatalog() {
      const name = `fleet_${String(process.pid)}_${String(++databases)}`;
      const admin = new pg.Client({ connectionString: postgres.url });
      await admin.connect();
      try {
        await admin.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`);
      } finally {
        await admin.end();
      }
      const url = new URL(postgres.url);
      url.pathname = `/${name}`;
      const pool = new pg.Pool({ connectionString: url.toString(), max: 1 });
      try {
        await initCatalog(pool);
      } finally {
        await pool.end();
      }
      return url.toString();
    },
    settings(catalog, name = randomBytes(4).toString('hex')) {
      return {
        project: `fleet/${name}`,
        catalog,
        objects: { kind: 's3', bucket, prefix: `p-${name}` },
        s3: { endpoint: s3.endpoint, region: s3.region, forcePathStyle: true, checksums: 'when_required' },
      };
    },
    async stop() {
      await s3.stop();
      await postgres.stop();
    },
  };
}
