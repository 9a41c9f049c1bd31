import type { ArtifactRecord } from '../artifact-record.js';
import type { RecordRoots } from './record-roots.js';
import { appendToHistory } from './history-journal.js';
import { appendRunStarts } from './run-order-index.js';

/**
 * Appends records just appended to their runs' artifacts.jsonl to the run-order index (runs.jsonl, for a run's
 * first record) and the history journal (workspace versions): the recorder's and import's one call for both;
 * a recorder passes its `roots`, so no batch opens the project again.
 */
export async function appendToRunIndexes(
  projectDir: string,
  records: readonly ArtifactRecord[],
  durability: 'fsync' | 'none' = 'fsync',
  roots?: RecordRoots,
): Promise<void> {
  if (records.length === 0) return;
  await appendRunStarts(projectDir, records, durability, roots);
  await appendToHistory(projectDir, records, durability, roots?.project);
}
