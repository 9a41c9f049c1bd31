import { quoteSourceText } from './quote-source-text.js';
import { CATALOG_PASSWORD_HOME } from './remote-values.js';
import type { YamlRuleIssue } from './with-rules.js';

// Key names that configure a credential, lower case without "_" or "-" and without an "aws" or "pg" in front
// (so password, PGPASSWORD, accessKeyId, AWS_ACCESS_KEY_ID and secret-access-key are all found).
const PASSWORD_KEYS = new Set(['password', 'passwd']);
const AWS_VARIABLES: ReadonlyMap<string, string> = new Map([
  ['accesskeyid', 'AWS_ACCESS_KEY_ID'],
  ['accesskey', 'AWS_ACCESS_KEY_ID'],
  ['secretaccesskey', 'AWS_SECRET_ACCESS_KEY'],
  ['secretkey', 'AWS_SECRET_ACCESS_KEY'],
  ['sessiontoken', 'AWS_SESSION_TOKEN (or a profile named by AWS_PROFILE)'],
]);
// Credentials deeper than this sit under a key that is refused as unknown anyway; the walk stays bounded.
const MAX_DEPTH = 32;

/**
 * Every key under `remote:` that configures a credential (`password`, `access_key_id`, `secret_access_key`,
 * `session_token`, in any case or spelling, at any depth), each with the environment variable it belongs in.
 * The issue is placed on the key and names it; its value is never read into the message.
 */
export function remoteCredentialIssues(remote: unknown): YamlRuleIssue[] {
  const issues: YamlRuleIssue[] = [];
  const pending: { value: unknown; path: (string | number)[] }[] = [{ value: remote, path: [] }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { value, path } = next;
    if (typeof value !== 'object' || value === null || path.length > MAX_DEPTH) continue;
    const entries: [string | number, unknown][] = Array.isArray(value)
      ? value.map((item: unknown, index) => [index, item])
      : Object.entries(value);
    for (const [key, item] of entries) {
      const home = typeof key === 'string' ? credentialHome(key, path[0] === 's3') : undefined;
      if (typeof key === 'string' && home !== undefined) {
        // The path stays the mapping's: "remote.password: ..." would read as an assignment to redaction.
        issues.push({
          path,
          message: `${quoteSourceText(key)} is a credential; never write one in the config file: remove it and set ${home}`,
          params: { key, keyInPath: false },
        });
      } else {
        pending.push({ value: item, path: [...path, key] });
      }
    }
  }
  return issues;
}

/** True for a key that configures a credential (refused by {@link remoteCredentialIssues}, not as an unknown key). */
export function isCredentialKey(key: string): boolean {
  return credentialHome(key, false) !== undefined;
}

/** The environment variable a credential key's value belongs in, or undefined for a key that is none. */
function credentialHome(key: string, underS3: boolean): string | undefined {
  const name = key
    .toLowerCase()
    .replace(/[-_\s]/g, '')
    .replace(/^(?:aws|pg)/, '');
  // Under remote.s3 a password can only be the S3 secret key (MinIO calls its keys a user and a password).
  if (PASSWORD_KEYS.has(name))
    return underS3 ? 'AWS_SECRET_ACCESS_KEY in the environment' : CATALOG_PASSWORD_HOME;
  const variable = AWS_VARIABLES.get(name);
  return variable === undefined ? undefined : `${variable} in the environment`;
}
