import { HISTORY_INDEX_DIR, RUN_ORDER_INDEX_PATH } from '../../project/index.js';
import type { RunId } from '../../project/index.js';
import type { Project } from '../../store/index.js';
import type { ArtifactRecord } from '../artifact-record.js';
import { isWorkspaceVersion } from './history-journal.js';
import { sortByTime } from './sort-by-time.js';
import { writeHistoryJournal } from './read-history.js';
import { renderRunStarts } from './run-order-index.js';
import type { RunStart } from './run-order-index.js';

/**
 * Rebuilds the run-order index (runs.jsonl) and the history journal from the runs' records (runs in id order,
 * each in file order): the journal in `createdAt` order, written aside and put in place of its folder's files
 * (the store's `replaceFolder`), with a meta.json that says it is complete. Returns how many segments the
 * journal has.
 */
export async function rebuildRunIndexes(
  project: Project,
  byRun: ReadonlyMap<RunId, readonly ArtifactRecord[]>,
): Promise<{ readonly runs: number; readonly segments: number }> {
  const starts: RunStart[] = [];
  const versions: ArtifactRecord[] = [];
  for (const [runId, records] of byRun) {
    if (records.length === 0) continue;
    const earliest = Math.min(...records.map((record) => Date.parse(record.createdAt)));
    starts.push({ runId, startedAt: new Date(earliest).toISOString() });
    versions.push(...records.filter(isWorkspaceVersion));
  }
  // Stable: of equal times, runs in id order and lines in file order, the order checkout's rule assumes.
  const segments = await project.store.replaceFolder(HISTORY_INDEX_DIR, (files) =>
    writeHistoryJournal(files, sortByTime(versions)),
  );
  await project.store.replace(RUN_ORDER_INDEX_PATH, renderRunStarts(starts));
  return { runs: starts.length, segments };
}
