import { redactSecrets } from './find-secret.js';

// Keys whose values are paths, hashes or ids: clean by rule (a path or id that holds a secret is refused where it
// enters), and kept byte for byte so a record always names the file it describes (docs/security.md, "Secrets").
const KEPT_KEY =
  /(?:^|_)(?:path|hash|sha256|run_id|node_id)$|(?:Path|Hash|Sha256|^path|^hash|^sha256|(?:artifact|run|task|node)Id)$/;

/**
 * A copy of a JSON value in which every string passed through `redactSecrets`, except the values of keys that
 * name a path, a hash or an id (`path`, `doc_path`, `contentHash`, `sha256`, `runId`, ...); what every record
 * writer calls before it serializes.
 */
export function redactJson<T>(value: T): T {
  return redactValue(value, undefined) as T;
}

function redactValue(value: unknown, key: string | undefined): unknown {
  if (typeof value === 'string')
    return key !== undefined && KEPT_KEY.test(key) ? value : redactSecrets(value);
  if (Array.isArray(value)) return value.map((item) => redactValue(item, key));
  if (value === null || typeof value !== 'object') return value;
  const copy: Record<string, unknown> = {};
  for (const [name, item] of Object.entries(value)) copy[name] = redactValue(item, name);
  return copy;
}
