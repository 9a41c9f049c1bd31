/** The environment variable whose value, when set, is sent as `Authorization: Bearer <value>` by `export`. */
export const LINEAGE_API_KEY_ENV = 'OPENLINEAGE_API_KEY';

/**
 * Environment variables holding a key the CLI sends somewhere: their values are removed by value from everything
 * the CLI prints, whatever their shape (redacting-io.ts; docs/security.md, "Secrets").
 */
export const SECRET_ENV_NAMES: readonly string[] = Object.freeze([LINEAGE_API_KEY_ENV]);
