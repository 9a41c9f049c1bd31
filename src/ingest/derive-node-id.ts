import { parseNodeId, parseRunId, redactSecrets, sanitizeId } from '../project/index.js';
import type { NodeId, RunId } from '../project/index.js';

/**
 * Derives a node id from a project-relative document path: `docs/tasks/api.md` -> `tasks.api`.
 * Characters an id cannot hold become `-`; the result always matches the layout's id pattern. A secret in the
 * path is redacted before deriving, so `password=x` never becomes the unrecognizable `password-x`.
 */
export function deriveNodeId(docPath: string): NodeId {
  const withoutRoot = redactSecrets(docPath).replace(/^docs\//, '');
  const withoutExtension = withoutRoot.replace(/\.(md|markdown|mdx)$/i, '');
  return parseNodeId(sanitizeId(withoutExtension.split('/').join('.'), 'doc'));
}

/** A default run id for command-line ingests: `cli-` and the UTC time to the millisecond. */
export function defaultCliRunId(now: Date = new Date()): RunId {
  return parseRunId(`cli-${now.toISOString().replace(/[-:]/g, '').replace('.', '')}`);
}
