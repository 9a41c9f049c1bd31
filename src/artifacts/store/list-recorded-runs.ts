import { ID_PATTERN } from '../../project/index.js';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { errnoOf } from '../../workspace/index.js';

/** The ids of the project's run folders under `.agent/runs/`, sorted; folders that cannot be run ids are left out. */
export async function listRecordedRuns(projectDir: string): Promise<string[]> {
  let entries;
  try {
    entries = await readdir(join(projectDir, '.agent', 'runs'), { withFileTypes: true });
  } catch (error) {
    if (errnoOf(error) === 'ENOENT') return [];
    throw error;
  }
  return entries
    .filter((entry) => entry.isDirectory() && ID_PATTERN.test(entry.name))
    .map((entry) => entry.name)
    .sort();
}
