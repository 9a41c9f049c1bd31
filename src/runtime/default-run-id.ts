import { runIdSchema } from '../ingest/index.js';

const MAX_ID_LENGTH = 128;

/** The default run id: `<graph name>-<UTC time to the ms>` (`team-20250601T120000123Z`), sanitized to the id pattern. */
export function defaultRunId(graphName: string, now: Date = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('.', '');
  const name = graphName
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^[^A-Za-z0-9]+/, '')
    .slice(0, MAX_ID_LENGTH - stamp.length - 1);
  const id = `${name === '' ? 'run' : name}-${stamp}`;
  // The pattern is the layout's (spec ingest.md): a folder name that needs no escaping anywhere.
  return runIdSchema.parse(id);
}
