/**
 * The catalog's schema, as numbered migrations applied in order by `remote init` (each once, recorded in
 * `artifact_ingest_schema`). Never edit a migration that shipped: add the next one.
 *
 * Keys and hashes are compared byte by byte (`COLLATE "C"`), so a folder's keys form one range of the primary key:
 * `<folder>/` up to `<folder>0` (the byte after `/`).
 */
export const CATALOG_MIGRATIONS: readonly { readonly version: number; readonly sql: string }[] = [
  {
    version: 1,
    sql: `
CREATE SEQUENCE artifact_ingest_file_version;

-- One row per stored file of a namespace: which file it is (a replace gives it a new version), its size, its time.
CREATE TABLE artifact_ingest_files (
  namespace text COLLATE "C" NOT NULL,
  key text COLLATE "C" NOT NULL,
  version bigint NOT NULL,
  size bigint NOT NULL,
  modified_ms bigint NOT NULL,
  PRIMARY KEY (namespace, key)
);

-- A file's bytes: the whole content of a replace, or one append (whole lines), at its offset in the file. seq is
-- the catalog's order of inserts: of records with the same createdAt, fleet reads order by it.
CREATE TABLE artifact_ingest_chunks (
  namespace text COLLATE "C" NOT NULL,
  key text COLLATE "C" NOT NULL,
  version bigint NOT NULL,
  start bigint NOT NULL,
  seq bigserial NOT NULL,
  bytes bytea NOT NULL,
  PRIMARY KEY (namespace, key, version, start)
);

-- Contents kept in the catalog (objects: catalog), by their sha256 in hex, per namespace.
CREATE TABLE artifact_ingest_objects (
  namespace text COLLATE "C" NOT NULL,
  hash text COLLATE "C" NOT NULL,
  bytes bytea NOT NULL,
  PRIMARY KEY (namespace, hash)
);
`,
  },
];

/** The schema version this package writes and reads. */
export const CATALOG_SCHEMA_VERSION = Math.max(...CATALOG_MIGRATIONS.map((migration) => migration.version));
