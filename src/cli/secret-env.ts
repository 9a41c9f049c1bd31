/** The environment variable whose value, when set, is sent as `Authorization: Bearer <value>` by `export`. */
export const LINEAGE_API_KEY_ENV = 'OPENLINEAGE_API_KEY';

/**
 * Environment variables holding a key the CLI sends somewhere: their values are removed by value from everything
 * the CLI prints, whatever their shape (redacting-io.ts; docs/security.md, "Secrets").
 */
export const SECRET_ENV_NAMES: readonly string[] = Object.freeze([
  LINEAGE_API_KEY_ENV,
  // `export otlp --langfuse` and `run --langfuse` (docs/traces.md): sent only inside the Authorization header.
  'LANGFUSE_SECRET_KEY',
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

/**
 * Environment variables holding OTLP headers (`key=value,...`, values URL-encoded; docs/traces.md): each value
 * (a token, most of the time) is a secret.
 */
export const SECRET_HEADER_ENV_NAMES: readonly string[] = Object.freeze([
  'OTEL_EXPORTER_OTLP_HEADERS',
  'OTEL_EXPORTER_OTLP_TRACES_HEADERS',
]);

/** The values of a `key=value,...` header list, as given and URL-decoded; none where there is no list. */
export function headerValuesOf(value: string | undefined): string[] {
  if (value === undefined || value === '') return [];
  return value.split(',').flatMap((pair) => {
    const at = pair.indexOf('=');
    if (at === -1) return [];
    const raw = pair.slice(at + 1).trim();
    if (raw === '') return [];
    let decoded = raw;
    try {
      decoded = decodeURIComponent(raw);
    } catch {
      // Not URL-encoded as the format asks: the value as given is still a secret.
    }
    // `Authorization=Bearer <token>`: the token alone is a secret too (a server may echo just it).
    const credential = /^[A-Za-z][A-Za-z0-9-]*\s+(\S+)$/.exec(decoded)?.[1];
    return [...new Set([raw, decoded, ...(credential === undefined ? [] : [credential])])];
  });
}
