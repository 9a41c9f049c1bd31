import { isRunId, RUNS_DIR } from '../../project/index.js';
import type { RunId } from '../../project/index.js';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { errnoOf } from '../../workspace/index.js';

/** The ids of the project's run folders under `.agent/runs/`, sorted; folders that cannot be run ids are left out. */
export async function listRecordedRuns(projectDir: string): Promise<RunId[]> {
  let entries;
  try {
    entries = await readdir(join(projectDir, RUNS_DIR), { withFileTypes: true });
  } catch (error) {
    if (errnoOf(error) === 'ENOENT') return [];
    throw error;
  }
  return entries
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .filter(isRunId)
    .sort();
}
