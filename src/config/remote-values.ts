import { findSecret } from '../project/index.js';
import { closestMatch } from './closest-match.js';
import type { RemoteObjectsSettings } from './remote-settings.js';

// Every rule here words its problem without the value: a catalog URL may hold a password, and the same
// messages serve the config file (with line and column) and the environment variables (named by the issue).

/** Where a remote setting was written: a password is refused in the file and accepted from the environment. */
export type RemoteSettingOrigin = 'file' | 'environment';

/** An example of each remote setting, for messages and docs. */
export const REMOTE_EXAMPLES = Object.freeze({
  project: 'acme/web',
  catalog: 'postgres://lineage@db.internal:5432/lineage?sslmode=require',
  objects: 's3://artifacts-bucket/artifact-ingest',
  endpoint: 'http://127.0.0.1:9000',
  region: 'us-east-1',
});

/** Where the catalog's password goes instead of the config file (libpq's own variables, which `pg` reads). */
export const CATALOG_PASSWORD_HOME = 'PGPASSWORD (or a password file named by PGPASSFILE) in the environment';
/** Where S3 keys go instead of the config file (the AWS SDK's default chain). */
export const S3_KEYS_HOME =
  'AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or a profile named by AWS_PROFILE) in the environment';

const MAX_PROJECT_LENGTH = 128;
const PROJECT_RULE = `a project is 1 to ${String(MAX_PROJECT_LENGTH)} letters, digits, ".", "_", "/" or "-", not starting with "/" or ".", such as ${REMOTE_EXAMPLES.project}`;

/** What is wrong with a `remote.project` namespace (empty: nothing). */
export function remoteProjectProblems(project: string): string[] {
  if (project === '') return [`is empty; ${PROJECT_RULE}`];
  const secret = findSecret(project);
  if (secret !== undefined) return [`holds what looks like a credential (${secret.family}); ${PROJECT_RULE}`];
  const other = /[^A-Za-z0-9._/-]/u.exec(project)?.[0];
  if (other !== undefined)
    return [`holds ${describeCharacter(other)}, which a project may not; ${PROJECT_RULE}`];
  if (project.startsWith('/') || project.startsWith('.'))
    return [`starts with "${project.charAt(0)}"; ${PROJECT_RULE}`];
  if (project.length > MAX_PROJECT_LENGTH)
    return [`is ${String(project.length)} characters long; ${PROJECT_RULE}`];
  return [];
}

const CATALOG_HINT = `write a PostgreSQL URL, such as ${REMOTE_EXAMPLES.catalog}`;
// A userinfo with a ':' in it: `scheme://user:password@`, up to the last '@' before the query.
const URL_PASSWORD = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^?#]*:[^?#]*@/;

/**
 * What is wrong with a `remote.catalog` URL (empty: nothing). From the file, a password (`user:secret@`, or a
 * `password` parameter, which `pg` reads too) is refused; from the environment it is accepted.
 */
export function catalogProblems(catalog: string, origin: RemoteSettingOrigin): string[] {
  if (catalog.trim() === '') return [`is empty; ${CATALOG_HINT}`];
  const passwordProblem = `holds a password; never write it in the config file: remove it from the URL and set ${CATALOG_PASSWORD_HOME}`;
  let url: URL;
  try {
    url = new URL(catalog);
  } catch {
    if (origin === 'file' && URL_PASSWORD.test(catalog)) return [passwordProblem];
    return [`is not a URL; ${CATALOG_HINT}`];
  }
  const problems: string[] = [];
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    problems.push(
      `is a ${JSON.stringify(url.protocol.slice(0, -1))} URL; expected postgres:// or postgresql://, ${CATALOG_HINT}`,
    );
  } else if (url.hostname === '' && (url.searchParams.get('host') ?? '') === '') {
    // libpq also takes the host (or a socket folder) as a parameter: postgres:///lineage?host=/run/postgresql.
    problems.push(`names no host; ${CATALOG_HINT} (or a socket folder, as ?host=/var/run/postgresql)`);
  }
  if (origin === 'file') {
    const inQuery = [...url.searchParams.keys()].some((key) => key.toLowerCase() === 'password');
    if (url.password !== '' || inQuery) problems.push(passwordProblem);
    // Only the parameters: a host and port such as secretdb:5432 would read as a secret= assignment.
    else if (findSecret(url.search) !== undefined)
      problems.push(
        `holds what looks like a credential; never write one in the config file: set ${CATALOG_PASSWORD_HOME}`,
      );
  }
  return problems;
}

const OBJECTS_HINT = `write s3://bucket or s3://bucket/prefix (contents in an S3-compatible object store), or catalog (contents in PostgreSQL), such as ${REMOTE_EXAMPLES.objects}`;
const BUCKET_RULE =
  'bucket names are 3 to 63 lowercase letters, digits, "." and "-", starting and ending with a letter or digit';
const PREFIX_RULE = `a prefix is "/"-separated parts of letters, digits and ! - _ . * ' ( ), none of them empty, "." or ".."`;
// S3 keys are at most 1024 bytes, and a content's key adds /sha256/<2 hex>/<62 hex> (74 characters).
const MAX_PREFIX_LENGTH = 900;

/** `remote.objects` read: where contents go, or what is wrong with it. */
export type RemoteObjectsReading =
  | { readonly ok: true; readonly objects: RemoteObjectsSettings }
  | { readonly ok: false; readonly problems: readonly string[] };

/** Reads `remote.objects`: the word `catalog`, or `s3://bucket` with an optional `/prefix/parts`. */
export function readRemoteObjects(objects: string): RemoteObjectsReading {
  const problems = (...found: string[]): RemoteObjectsReading => ({ ok: false, problems: found });
  if (objects === 'catalog') return { ok: true, objects: { kind: 'catalog' } };
  if (objects.trim() === '') return problems(`is empty; ${OBJECTS_HINT}`);
  const schemeEnd = objects.indexOf('://');
  if (schemeEnd === -1) {
    const suggestion = closestMatch(objects, ['catalog']);
    return problems(
      suggestion === undefined
        ? `is neither an s3:// URL nor catalog; ${OBJECTS_HINT}`
        : `is not catalog; did you mean "catalog"? Or ${OBJECTS_HINT}`,
    );
  }
  const scheme = objects.slice(0, schemeEnd);
  const rest = objects.slice(schemeEnd + 3);
  const slash = rest.indexOf('/');
  const authority = slash === -1 ? rest : rest.slice(0, slash);
  if (authority.includes('@'))
    return problems(
      `holds credentials; never write them in the config file: remove them and set ${S3_KEYS_HOME}`,
    );
  if (scheme.toLowerCase() !== 's3') {
    const shown = /^[A-Za-z][A-Za-z0-9+.-]{0,31}$/.test(scheme)
      ? `a ${JSON.stringify(scheme)} URL`
      : 'not an s3:// URL';
    return problems(
      `is ${shown}; ${OBJECTS_HINT} (for a server at an http(s):// address, set remote.s3.endpoint to it and write objects: s3://bucket)`,
    );
  }
  const bucketProblem = bucketProblemOf(authority);
  const prefix = slash === -1 ? '' : rest.slice(slash + 1).replace(/\/+$/, '');
  const prefixProblem = prefixProblemOf(prefix);
  const found = [bucketProblem, prefixProblem].filter((problem) => problem !== undefined);
  if (found.length > 0) return problems(...found);
  // Judged once the shape is right, so that a bucket such as secretbucket:9000 is told about its ":".
  const secret = findSecret(objects);
  if (secret !== undefined)
    return problems(
      `holds what looks like a credential (${secret.family}); never write one in the config file: set ${S3_KEYS_HOME}`,
    );
  return { ok: true, objects: { kind: 's3', bucket: authority, prefix } };
}

function bucketProblemOf(bucket: string): string | undefined {
  if (bucket === '') return `names no bucket; ${OBJECTS_HINT}`;
  const upper = /[A-Z]/.exec(bucket)?.[0];
  if (upper !== undefined)
    return `bucket name holds upper case (${describeCharacter(upper)}); ${BUCKET_RULE}`;
  const other = /[^a-z0-9.-]/u.exec(bucket)?.[0];
  if (other !== undefined)
    return `bucket name holds ${describeCharacter(other)}, which a bucket name may not; ${BUCKET_RULE}`;
  if (bucket.length < 3 || bucket.length > 63)
    return `bucket name is ${String(bucket.length)} characters long; ${BUCKET_RULE}`;
  if (!/^[a-z0-9]/.test(bucket) || !/[a-z0-9]$/.test(bucket))
    return `bucket name starts or ends with "." or "-"; ${BUCKET_RULE}`;
  return undefined;
}

function prefixProblemOf(prefix: string): string | undefined {
  if (prefix === '') return undefined;
  const other = /[^A-Za-z0-9!_.*'()/-]/u.exec(prefix)?.[0];
  if (other !== undefined)
    return `prefix holds ${describeCharacter(other)}, which a prefix may not; ${PREFIX_RULE}`;
  if (prefix.split('/').some((part) => part === '' || part === '.' || part === '..'))
    return `prefix has an empty, "." or ".." part; ${PREFIX_RULE}`;
  if (prefix.length > MAX_PREFIX_LENGTH)
    return `prefix is ${String(prefix.length)} characters long; keep it to ${String(MAX_PREFIX_LENGTH)} (S3 keys are at most 1024 bytes, and contents add 74 characters under it)`;
  return undefined;
}

const ENDPOINT_HINT = `write the server's address, such as ${REMOTE_EXAMPLES.endpoint}`;

/** What is wrong with a `remote.s3.endpoint` (empty: nothing): an http:// or https:// URL without credentials. */
export function s3EndpointProblems(endpoint: string): string[] {
  if (endpoint.trim() === '') return [`is empty; ${ENDPOINT_HINT}`];
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    if (URL_PASSWORD.test(endpoint))
      return [`holds credentials; never write them in the config file: remove them and set ${S3_KEYS_HOME}`];
    return [`is not a URL; ${ENDPOINT_HINT}`];
  }
  if (url.username !== '' || url.password !== '' || findSecret(url.search) !== undefined)
    return [`holds credentials; never write them in the config file: remove them and set ${S3_KEYS_HOME}`];
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return [
      `is a ${JSON.stringify(url.protocol.slice(0, -1))} URL; expected http:// or https://, ${ENDPOINT_HINT}`,
    ];
  return [];
}

const REGION_RULE = `a region is 1 to 64 letters, digits, ".", "_" or "-", such as ${REMOTE_EXAMPLES.region}`;

/** What is wrong with a `remote.s3.region` (empty: nothing). */
export function s3RegionProblems(region: string): string[] {
  if (region === '') return [`is empty; ${REGION_RULE}, or leave it out`];
  const other = /[^A-Za-z0-9._-]/u.exec(region)?.[0];
  if (other !== undefined)
    return [`holds ${describeCharacter(other)}, which a region may not; ${REGION_RULE}`];
  if (region.length > 64) return [`is ${String(region.length)} characters long; ${REGION_RULE}`];
  return [];
}

/** One character as a message shows it: `":"`, `a space`, or `U+200E` for what a terminal would not show as itself. */
function describeCharacter(character: string): string {
  if (character === ' ') return 'a space';
  const code = character.codePointAt(0) ?? 0;
  if (code < 0x21 || code > 0x7e) return `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
  return JSON.stringify(character);
}
