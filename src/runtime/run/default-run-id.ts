import { parseRunId, sanitizeId, MAX_ID_LENGTH } from '../../project/index.js';
import type { RunId } from '../../project/index.js';

/** The default run id: `<graph name>-<UTC time to the ms>` (`team-20250601T120000123Z`), sanitized to the id pattern. */
export function defaultRunId(graphName: string, now: Date = new Date()): RunId {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('.', '');
  const name = sanitizeId(graphName, 'run', MAX_ID_LENGTH - stamp.length - 1);
  return parseRunId(`${name}-${stamp}`);
}
