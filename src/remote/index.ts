export { catalogFailure } from './catalog-failure.js';
export { CATALOG_SCHEMA_VERSION } from './catalog-migrations.js';
export { catalogVersion, checkCatalogSchema, initCatalog } from './catalog-schema.js';
export type { CatalogInit } from './catalog-schema.js';
export { catalogStore } from './catalog-store.js';
export type { CatalogStoreOptions } from './catalog-store.js';
export type { ObjectBackend } from './object-backend.js';
export {
  catalogLocation,
  catalogUnreachable,
  openCatalogPool,
  openObjectBackend,
  openRemoteStore,
} from './open-remote-store.js';
export type { OpenRemoteOptions, RemoteStoreSettings } from './open-remote-store.js';
export { RemoteError } from './remote-error.js';
export type { RemoteErrorCode } from './remote-error.js';
