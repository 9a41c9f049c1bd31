import { describeError } from '../project/index.js';
import { openProject } from '../store/index.js';
import type { Project, ProjectStore } from '../store/index.js';
import type { CliIo } from './cli-io.js';
import { resolveProject } from './resolve-project.js';
import { NoRemoteError } from './no-remote-error.js';

/** Where a read command finds the runs: `--project` (default: the current directory) and `--remote`. */
export interface CommandProjectOptions {
  readonly project?: string | undefined;
  readonly remote?: boolean | undefined;
}

/**
 * Runs `use` on the project a read command names: the folder's own `.agent/`, or with `--remote` the remote the
 * folder's config (or the environment) configures, the folder still being where `workspace/` paths resolve and
 * where files are written. The store is closed after `use`, whatever it did. No remote configured: a
 * {@link NoRemoteError} saying how to configure one (`no_remote`, exit 2).
 */
export async function usingCommandProject<T>(
  command: string,
  options: CommandProjectOptions,
  io: CliIo,
  use: (project: Project) => Promise<T>,
): Promise<T> {
  const dir = await resolveProject(options.project, command, io.cwd);
  if (options.remote !== true) {
    const project = openProject(dir);
    try {
      return await use(project);
    } finally {
      await project.store.close();
    }
  }
  const remote = await openConfiguredRemote(dir, command, io);
  try {
    return await use(openProject(dir, { store: remote.store }));
  } catch (error) {
    throw remote.failure(error);
  } finally {
    await remote.store.close();
  }
}

/** An opened remote, and what a driver error it threw mid-command becomes: a `RemoteError`, not a crash. */
interface OpenedRemote {
  readonly store: ProjectStore;
  failure(error: unknown): unknown;
}

/** The remote `dir`'s config and the environment configure, opened; its modules load only for `--remote`. */
async function openConfiguredRemote(dir: string, command: string, io: CliIo): Promise<OpenedRemote> {
  const [config, { catalogLocation, openRemoteStore, RemoteError }] = await Promise.all([
    import('../config/index.js'),
    import('../remote/index.js'),
  ]);
  const settings = config.resolveRemoteSettings(await config.loadProjectConfig(dir), io.env);
  if (settings === undefined) throw new NoRemoteError(`${command} --remote`, dir);
  const store = await openRemoteStore(settings);
  return {
    store,
    failure: (error) => {
      if (!isCatalogDriverError(error)) return error;
      return new RemoteError({
        code: 'remote_failed',
        part: 'catalog',
        message: `the catalog ${catalogLocation(settings.catalog)} failed during '${command}': ${describeError(error)}; check the server and the role's grants (docs/remote.md)`,
        cause: error,
      });
    },
  };
}

/**
 * An error of the PostgreSQL driver: the server's (a SQLSTATE `code` and a `severity`), or the connection's end.
 * Errors of the product's own classes and the system's (with a `syscall`) are left to the CLI's table.
 */
function isCatalogDriverError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const { code, severity } = error as { code?: unknown; severity?: unknown };
  if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && typeof severity === 'string') return true;
  return /^Connection terminated/.test(error.message);
}
