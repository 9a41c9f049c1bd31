import { loadProjectConfig, resolveRemoteSettings } from '../../config/index.js';
import type { RemoteSettings } from '../../config/index.js';
import { openRemoteStore } from '../../remote/index.js';
import { openProject } from '../../store/index.js';
import type { Project } from '../../store/index.js';
import type { CliIo } from '../cli-io.js';
import { resolveProject } from '../resolve-project.js';
import { NoRemoteError } from '../no-remote-error.js';

/** The project a fleet command works in, and its remote (`remote:` of the config, the environment's overrides applied). */
export interface FleetContext {
  readonly projectDir: string;
  readonly settings: RemoteSettings;
}

/** How long a fleet command waits for the catalog to answer before it says it is unreachable. */
export const FLEET_CONNECT_TIMEOUT_MS = 10_000;

/** Resolves `--project`, loads its config and the remote; {@link NoRemoteError} (exit 2) when none is configured. */
export async function fleetContext(
  project: string | undefined,
  command: string,
  io: CliIo,
): Promise<FleetContext> {
  const projectDir = await resolveProject(project, command, io.cwd);
  const settings = resolveRemoteSettings(await loadProjectConfig(projectDir), io.env);
  if (settings === undefined) throw new NoRemoteError(command, projectDir);
  return { projectDir, settings };
}

/** The remote as a {@link Project} over `projectDir` (its schema checked); the caller closes its store. */
export async function openRemoteProject(context: FleetContext): Promise<Project> {
  const store = await openRemoteStore(context.settings, { connectTimeoutMs: FLEET_CONNECT_TIMEOUT_MS });
  return openProject(context.projectDir, { store });
}
