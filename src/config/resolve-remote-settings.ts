import { ConfigError, type ConfigIssue } from './config-error.js';
import type { ProjectConfig } from './project-config.js';
import { toRemoteS3Settings } from './remote-config.js';
import type { RemoteObjectsSettings, RemoteSettings } from './remote-settings.js';
import {
  catalogProblems,
  readRemoteObjects,
  REMOTE_EXAMPLES,
  remoteProjectProblems,
} from './remote-values.js';

/** The environment variable that replaces `remote.catalog` (a password in it is accepted: it is the environment). */
export const REMOTE_CATALOG_ENV = 'ARTIFACT_INGEST_REMOTE_CATALOG';
/** The environment variable that replaces `remote.objects`. */
export const REMOTE_OBJECTS_ENV = 'ARTIFACT_INGEST_REMOTE_OBJECTS';
/** The environment variable that replaces `remote.project`. */
export const REMOTE_PROJECT_ENV = 'ARTIFACT_INGEST_REMOTE_PROJECT';

const VARIABLES = [REMOTE_CATALOG_ENV, REMOTE_OBJECTS_ENV, REMOTE_PROJECT_ENV] as const;
const EXAMPLES: Readonly<Record<(typeof VARIABLES)[number], string>> = {
  [REMOTE_CATALOG_ENV]: REMOTE_EXAMPLES.catalog,
  [REMOTE_OBJECTS_ENV]: REMOTE_EXAMPLES.objects,
  [REMOTE_PROJECT_ENV]: REMOTE_EXAMPLES.project,
};

/**
 * The remote the project uses: the config file's `remote:` section with each of `ARTIFACT_INGEST_REMOTE_CATALOG`,
 * `_OBJECTS` and `_PROJECT` that is set (not empty) in its place; with no section, the three variables alone
 * (all of them), or undefined when neither configures one. Throws `ConfigError` (source `environment`) naming
 * every variable that is wrong or missing, never showing a catalog URL.
 */
export function resolveRemoteSettings(
  config: ProjectConfig,
  env: Readonly<Record<string, string | undefined>> = process.env,
): RemoteSettings | undefined {
  const file = config.remote;
  const issues: ConfigIssue[] = [];
  const problem = (path: string) => (message: string) => issues.push({ path, message });
  const catalog = valueOf(env, REMOTE_CATALOG_ENV);
  if (catalog !== undefined) catalogProblems(catalog, 'environment').forEach(problem(REMOTE_CATALOG_ENV));
  const project = valueOf(env, REMOTE_PROJECT_ENV);
  if (project !== undefined) remoteProjectProblems(project).forEach(problem(REMOTE_PROJECT_ENV));
  const objectsText = valueOf(env, REMOTE_OBJECTS_ENV);
  let objects: RemoteObjectsSettings | undefined;
  if (objectsText !== undefined) {
    const reading = readRemoteObjects(objectsText);
    if (reading.ok) objects = reading.objects;
    else reading.problems.forEach(problem(REMOTE_OBJECTS_ENV));
  }
  const set = VARIABLES.filter((name) => valueOf(env, name) !== undefined);
  if (file === undefined && set.length > 0) {
    for (const name of VARIABLES.filter((variable) => !set.includes(variable))) {
      problem(name)(
        `is not set, and the config file has no remote: section; the environment configures a remote only with ` +
          `${VARIABLES.join(', ')} all set: set it (such as ${name}=${EXAMPLES[name]}), or add a remote: section`,
      );
    }
  }
  if (issues.length > 0) throw new ConfigError('environment', issues);
  if (file === undefined) {
    if (catalog === undefined || objects === undefined || project === undefined) return undefined;
    return { project, catalog, objects, s3: toRemoteS3Settings() };
  }
  return {
    project: project ?? file.project,
    catalog: catalog ?? file.catalog,
    objects: objects ?? file.objects,
    s3: file.s3,
  };
}

/** A variable's value, trimmed; an empty one counts as unset (`VAR= cmd` is how a shell unsets it for one command). */
function valueOf(env: Readonly<Record<string, string | undefined>>, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}
