import { usingProject } from '../../store/index.js';
import type { ProjectRef } from '../../store/index.js';
import type { ArtifactRecord } from '../artifact-record.js';
import { appendToHistory } from './history-journal.js';
import { appendRunStarts } from './run-order-index.js';

/**
 * Appends records just appended to their runs' artifacts.jsonl to the run-order index (runs.jsonl, for a run's
 * first record) and the history journal (workspace versions): the recorder's and import's one call for both;
 * a recorder passes its session, so no batch opens the project again.
 */
export async function appendToRunIndexes(
  project: ProjectRef,
  records: readonly ArtifactRecord[],
  durability: 'fsync' | 'none' = 'fsync',
): Promise<void> {
  if (records.length === 0) return;
  await usingProject(project, async (opened) => {
    await appendRunStarts(opened, records, durability);
    await appendToHistory(opened, records, durability);
  });
}
