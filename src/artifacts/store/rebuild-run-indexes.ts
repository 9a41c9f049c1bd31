import { HISTORY_INDEX_DIR, RUN_ORDER_INDEX_PATH } from '../../project/index.js';
import type { RunId } from '../../project/index.js';
import { openConfinedRoot } from '../../workspace/index.js';
import type { ArtifactRecord } from '../artifact-record.js';
import { isWorkspaceVersion } from './history-journal.js';
import { sortByTime } from './artifact-index.js';
import { writeHistoryJournal } from './read-history.js';
import { renderRunStarts } from './run-order-index.js';
import { replaceIndexFolder } from './replace-index-folder.js';
import type { RunStart } from './run-order-index.js';

/**
 * Rebuilds the run-order index (runs.jsonl) and the history journal from the runs' records (runs in id order,
 * each in file order): the journal in `createdAt` order, staged beside its folder and renamed over it file by
 * file, with a meta.json that says it is complete. Returns how many segments the journal has.
 */
export async function rebuildRunIndexes(
  projectDir: string,
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
  const root = await openConfinedRoot(projectDir, { create: true });
  try {
    // Stable: of equal times, runs in id order and lines in file order, the order checkout's rule assumes.
    const segments = await replaceIndexFolder(root, HISTORY_INDEX_DIR, (files) =>
      writeHistoryJournal(files, sortByTime(versions)),
    );
    const written = await root.write(RUN_ORDER_INDEX_PATH, Buffer.from(renderRunStarts(starts), 'utf8'));
    if (written.status === 'refused')
      throw new Error(`cannot write ${RUN_ORDER_INDEX_PATH}: ${written.message}`);
    return { runs: starts.length, segments };
  } finally {
    await root.close();
  }
}
