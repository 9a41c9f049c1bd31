import { findSecret, redactSecrets, sha256Hex } from '../../project/index.js';
import { findSecretInPath } from '../../workspace/index.js';

/** Starts every snapshot key that stands for a path with a credential-shaped component (decision D84). */
export const SECRET_KEY_PREFIX = '[REDACTED]:sha256:';

/**
 * The key `path` is stored under in a snapshot: the path itself, or, when a component looks like a credential
 * (the path rules' `findSecretInPath`), `[REDACTED]:sha256:<sha256 hex of the path>:<the path with those
 * components redacted>`, so no secret is written to the run folder. Equal paths give equal keys and different
 * paths different keys, so two snapshots still compare; a real path that starts with the prefix is keyed the
 * same way, so it can never pass for another path's key.
 */
export function snapshotKey(path: string): string {
  if (findSecretInPath(path) === undefined && !path.startsWith(SECRET_KEY_PREFIX)) return path;
  const shown = path
    .split('/')
    .map((component) => (findSecret(component) === undefined ? component : redactSecrets(component)))
    .join('/');
  return `${SECRET_KEY_PREFIX}${sha256Hex(path)}:${shown}`;
}
