/** The environment variable whose value, when set, is sent as `Authorization: Bearer <value>` by `export`. */
export const LINEAGE_API_KEY_ENV = 'OPENLINEAGE_API_KEY';

/**
 * Environment variables holding a key the CLI sends somewhere: their values are removed by value from everything
 * the CLI prints, whatever their shape (redacting-io.ts; docs/security.md, "Secrets").
 */
export const SECRET_ENV_NAMES: readonly string[] = Object.freeze([
  LINEAGE_API_KEY_ENV,
  // The remote's credentials (docs/remote.md): the catalog's password, the object store's secret key and token.
  'PGPASSWORD',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
]);

/** Environment variables holding a URL whose password part is a secret: the catalog's, when set there. */
export const SECRET_URL_ENV_NAMES: readonly string[] = Object.freeze(['ARTIFACT_INGEST_REMOTE_CATALOG']);

/** The password of a URL held in the environment, or undefined (none, or not a URL). */
export function passwordOfUrl(value: string | undefined): string | undefined {
  if (value === undefined || value === '') return undefined;
  try {
    const password = new URL(value).password;
    return password === '' ? undefined : decodeURIComponent(password);
  } catch {
    return undefined;
  }
}
