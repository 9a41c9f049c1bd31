import { describeError } from '../project/index.js';
import { catalogLocation, catalogUnreachable } from './open-remote-store.js';
import type { RemoteStoreSettings } from './open-remote-store.js';
import { RemoteError } from './remote-error.js';

// SQLSTATE classes that mean the server could not be used at all: 08 connection, 28 login, 3D no such database,
// 57 the server is shutting down or cancelled us.
const UNREACHABLE_CLASSES = new Set(['08', '28', '3D', '57']);

/**
 * A failure of the catalog as a {@link RemoteError}: one already is passes through; a connection, login or missing
 * database is `unreachable`; any other error the server answered with (a permission refused, a full disk) is
 * `remote_failed`. The catalog is named without its password.
 */
export function catalogFailure(settings: RemoteStoreSettings, error: unknown): RemoteError {
  if (error instanceof RemoteError) return error;
  const sqlState = (error as { code?: unknown } | undefined)?.code;
  if (
    typeof sqlState === 'string' &&
    /^[0-9A-Z]{5}$/.test(sqlState) &&
    !UNREACHABLE_CLASSES.has(sqlState.slice(0, 2))
  ) {
    return new RemoteError({
      code: 'remote_failed',
      part: 'catalog',
      message: `the catalog ${catalogLocation(settings.catalog)} refused the work: ${describeError(error)} (SQLSTATE ${sqlState}); check the role's privileges on the database`,
      cause: error,
    });
  }
  return catalogUnreachable(settings, error);
}
