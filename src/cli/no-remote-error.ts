/** A fleet command (`push`, `pull`, `remote`) in a project with no remote configured: exit 2, saying how to add one. */
export class NoRemoteError extends Error {
  override readonly name = 'NoRemoteError';
  readonly code = 'no_remote';

  constructor(command: string) {
    super(
      `${command} needs a remote, and this project has none: add a remote: section to artifact-ingest.config.yaml ` +
        '(project, catalog, objects), or set ARTIFACT_INGEST_REMOTE_CATALOG, ARTIFACT_INGEST_REMOTE_OBJECTS and ' +
        'ARTIFACT_INGEST_REMOTE_PROJECT; see docs/remote.md',
    );
  }
}
