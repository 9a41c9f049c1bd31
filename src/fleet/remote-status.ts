import type { Pool } from 'pg';
import type { RunId } from '../project/index.js';
import {
  CATALOG_SCHEMA_VERSION,
  catalogLocation,
  catalogStore,
  catalogVersion,
  openCatalogPool,
  openObjectBackend,
  RemoteError,
  catalogFailure,
} from '../remote/index.js';
import type { ObjectBackend, RemoteErrorCode, RemoteStoreSettings } from '../remote/index.js';
import { listRecordedRuns, openProject } from '../store/index.js';
import type { Project } from '../store/index.js';
import { listPending } from './outbox.js';

/** Why a part of the remote cannot be used: a {@link RemoteError}'s code and message (no password in it). */
export interface RemoteProblem {
  readonly code: RemoteErrorCode;
  readonly message: string;
}

/** The catalog as `remote status` found it. */
export type CatalogStatus =
  | {
      readonly location: string;
      readonly reachable: true;
      /** The catalog's schema version (0: none yet). */
      readonly schemaVersion: number;
      /** The version this package uses. */
      readonly packageSchemaVersion: number;
      /** `remote init` would create or migrate the schema (it is missing or older). */
      readonly initNeeded: boolean;
      /** The catalog is newer than this package: upgrade artifact-ingest. */
      readonly tooNew: boolean;
    }
  | { readonly location: string; readonly reachable: false; readonly problem: RemoteProblem };

/** The object store as `remote status` found it. */
export type ObjectsStatus =
  | { readonly location: string; readonly reachable: true }
  | { readonly location: string; readonly reachable: false; readonly problem: RemoteProblem };

/** What {@link remoteStatus} found: each part of the remote, this namespace's runs there, and what is pending here. */
export interface RemoteStatus {
  /** `remote.project`: the namespace. */
  readonly project: string;
  readonly catalog: CatalogStatus;
  readonly objects: ObjectsStatus;
  /** How many runs the namespace holds in the catalog; undefined when the catalog cannot list them. */
  readonly runs: number | undefined;
  /** The runs of this machine's outbox (not all in the remote yet). */
  readonly pending: readonly RunId[];
  /** True when both parts answer and the schema is this package's: push, pull and `--remote` reads work. */
  readonly usable: boolean;
}

/**
 * `remote status`: whether the catalog and the object store answer (each on its own, with the error when not),
 * the catalog's schema version against this package's, this namespace's run count, and this machine's outbox.
 * Never throws for a remote that is down: that is what it reports.
 */
export async function remoteStatus(
  local: Project,
  settings: RemoteStoreSettings,
  options: { readonly connectTimeoutMs?: number } = {},
): Promise<RemoteStatus> {
  const pending = await listPending(local);
  const pool = openCatalogPool(settings, {
    maxConnections: 2,
    connectTimeoutMs: options.connectTimeoutMs ?? 5000,
  });
  const location = catalogLocation(settings.catalog);
  let backend: ObjectBackend | undefined;
  let runs: number | undefined;
  try {
    const catalog = await catalogStatusOf(settings, pool, location);
    let objects: ObjectsStatus;
    try {
      backend = openObjectBackend(settings, pool);
      objects = await objectsStatusOf(settings, backend, catalog);
    } catch (error) {
      objects = {
        location: objectsLocation(settings),
        reachable: false,
        problem: problemOf(settings, error),
      };
    }
    if (catalog.reachable && !catalog.initNeeded && !catalog.tooNew) {
      runs = await countRuns(local, settings, pool, location).catch(() => undefined);
    }
    const usable = catalog.reachable && !catalog.initNeeded && !catalog.tooNew && objects.reachable;
    return { project: settings.project, catalog, objects, runs, pending, usable };
  } finally {
    await backend?.close().catch(() => undefined);
    await pool.end().catch(() => undefined);
  }
}

async function catalogStatusOf(
  settings: RemoteStoreSettings,
  pool: Pool,
  location: string,
): Promise<CatalogStatus> {
  try {
    const schemaVersion = await catalogVersion(pool);
    return {
      location,
      reachable: true,
      schemaVersion,
      packageSchemaVersion: CATALOG_SCHEMA_VERSION,
      initNeeded: schemaVersion < CATALOG_SCHEMA_VERSION,
      tooNew: schemaVersion > CATALOG_SCHEMA_VERSION,
    };
  } catch (error) {
    return { location, reachable: false, problem: problemOf(settings, error) };
  }
}

async function objectsStatusOf(
  settings: RemoteStoreSettings,
  backend: ObjectBackend,
  catalog: CatalogStatus,
): Promise<ObjectsStatus> {
  const location = backend.location;
  if (settings.objects.kind === 'catalog') {
    // Contents live in the catalog: they answer when it does, once its schema (their table) is there.
    if (!catalog.reachable) return { location, reachable: false, problem: catalog.problem };
    if (catalog.schemaVersion === 0) {
      return {
        location,
        reachable: false,
        problem: {
          code: 'schema_missing',
          message:
            "the catalog has no artifact-ingest schema yet, so no table for contents; run 'artifact-ingest remote init' once to create it",
        },
      };
    }
  }
  try {
    await backend.probe();
    return { location, reachable: true };
  } catch (error) {
    return { location, reachable: false, problem: problemOf(settings, error) };
  }
}

/** The namespace's runs in the catalog, listed through the store as every fleet read lists them. */
async function countRuns(
  local: Project,
  settings: RemoteStoreSettings,
  pool: Pool,
  location: string,
): Promise<number> {
  // The store is not closed: it would end the pool and the backend, which remoteStatus ends itself.
  const store = catalogStore({
    pool,
    namespace: settings.project,
    objects: openObjectBackend({ ...settings, objects: { kind: 'catalog' } }, pool),
    location: `${location} (project ${settings.project})`,
  });
  return (await listRecordedRuns(openProject(local.dir, { store }))).length;
}

function problemOf(settings: RemoteStoreSettings, error: unknown): RemoteProblem {
  const remote = error instanceof RemoteError ? error : catalogFailure(settings, error);
  return { code: remote.code, message: remote.message };
}

function objectsLocation(settings: RemoteStoreSettings): string {
  const { objects } = settings;
  if (objects.kind === 'catalog') return 'the catalog';
  return `s3://${objects.bucket}${objects.prefix === '' ? '' : `/${objects.prefix}`}`;
}
