import { PROJECT_CONFIG_FILE } from '../project/index.js';
import { openProject } from '../store/index.js';
import type { Project, ProjectStore } from '../store/index.js';
import type { CliIo } from './cli-io.js';
import { resolveProject } from './resolve-project.js';
import { UsageError } from './usage-error.js';

/** Where a read command finds the runs: `--project` (default: the current directory) and `--remote`. */
export interface CommandProjectOptions {
  readonly project?: string | undefined;
  readonly remote?: boolean | undefined;
}

/**
 * Runs `use` on the project a read command names: the folder's own `.agent/`, or with `--remote` the remote the
 * folder's config (or the environment) configures, the folder still being where `workspace/` paths resolve and
 * where files are written. The store is closed after `use`, whatever it did. No remote configured: a
 * {@link UsageError} saying how to configure one (exit 2).
 */
export async function usingCommandProject<T>(
  command: string,
  options: CommandProjectOptions,
  io: CliIo,
  use: (project: Project) => Promise<T>,
): Promise<T> {
  const dir = await resolveProject(options.project, command, io.cwd);
  const project =
    options.remote === true
      ? openProject(dir, { store: await openConfiguredRemote(dir, command, io) })
      : openProject(dir);
  try {
    return await use(project);
  } finally {
    await project.store.close();
  }
}

/** The remote `dir`'s config and the environment configure, opened; its modules load only for `--remote`. */
async function openConfiguredRemote(dir: string, command: string, io: CliIo): Promise<ProjectStore> {
  const [config, { openRemoteStore }] = await Promise.all([
    import('../config/index.js'),
    import('../remote/index.js'),
  ]);
  const settings = config.resolveRemoteSettings(await config.loadProjectConfig(dir), io.env);
  if (settings === undefined) {
    throw new UsageError(
      `--remote reads the runs from a remote, and ${dir} has none configured: add a remote: section (project, ` +
        `catalog, objects) to its ${PROJECT_CONFIG_FILE}, or set ${config.REMOTE_PROJECT_ENV}, ` +
        `${config.REMOTE_CATALOG_ENV} and ${config.REMOTE_OBJECTS_ENV}; see docs/remote.md`,
      command,
    );
  }
  return openRemoteStore(settings);
}
