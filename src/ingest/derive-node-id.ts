/**
 * Derives a node id from a project-relative document path: `docs/tasks/api.md` -> `tasks.api`.
 * Characters an id cannot hold become `-`; the result always matches the layout's id pattern.
 */
export function deriveNodeId(docPath: string): string {
  const withoutRoot = docPath.replace(/^docs\//, '');
  const withoutExtension = withoutRoot.replace(/\.(md|markdown|mdx)$/i, '');
  const id = withoutExtension
    .split('/')
    .join('.')
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^[^A-Za-z0-9]+/, '')
    .slice(0, 128);
  return id === '' ? 'doc' : id;
}

/** A default run id for command-line ingests: `cli-` and the UTC time to the millisecond. */
export function defaultCliRunId(now: Date = new Date()): string {
  return `cli-${now.toISOString().replace(/[-:]/g, '').replace('.', '')}`;
}
