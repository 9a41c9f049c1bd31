// Written out, not imported: this file loads with every command's error path, the config's schemas do not.
const CONFIG_FILE = 'artifact-ingest.config.yaml';
const REMOTE_VARIABLES = [
  'ARTIFACT_INGEST_REMOTE_CATALOG',
  'ARTIFACT_INGEST_REMOTE_OBJECTS',
  'ARTIFACT_INGEST_REMOTE_PROJECT',
] as const;

/**
 * The one message for a command that needs a remote in a project that has none (`push`, `pull`, `remote`, and any
 * read given `--remote`): the command, the folder, the `remote:` section's keys, the three environment variables
 * and docs/remote.md.
 */
export function noRemoteMessage(command: string, projectDir: string): string {
  return (
    `${command} needs a remote, and ${projectDir} has none configured: add a remote: section (project, catalog, ` +
    `objects) to its ${CONFIG_FILE}, or set ${REMOTE_VARIABLES.slice(0, -1).join(', ')} and ` +
    `${REMOTE_VARIABLES[REMOTE_VARIABLES.length - 1] ?? ''}; see docs/remote.md`
  );
}

/** A command that needs a remote in a project with none configured: `no_remote`, exit 2, saying how to add one. */
export class NoRemoteError extends Error {
  override readonly name = 'NoRemoteError';
  readonly code = 'no_remote';

  /** `command` as the user typed it (`push`, `runs --remote`); `projectDir` the folder whose config was read. */
  constructor(command: string, projectDir: string) {
    super(noRemoteMessage(command, projectDir));
  }
}
