import { isRunId, runDir, RUNS_DIR } from '../project/index.js';
import type { RunId } from '../project/index.js';
import { StoreError } from './store-error.js';
import { usingProject } from './project.js';
import type { ProjectRef } from './project.js';

/** The ids of the project's run folders under `.agent/runs/`, sorted; folders that cannot be run ids are left out. */
export async function listRecordedRuns(project: ProjectRef): Promise<RunId[]> {
  const entries = await usingProject(project, ({ store }) => store.list(RUNS_DIR));
  return entries
    .filter((entry) => entry.kind === 'folder')
    .map((entry) => entry.name)
    .filter(isRunId)
    .sort();
}

/**
 * Whether the project keeps a folder for the run `runId` under `.agent/runs/` (what a run id must name): one listing
 * of that folder when it holds something, the listing of every run only for an empty or missing one. A symlink
 * or a file in the run folder's place is no run.
 */
export async function hasRunFolder(project: ProjectRef, runId: RunId): Promise<boolean> {
  return usingProject(project, async ({ store }) => {
    try {
      if ((await store.list(runDir(runId))).length > 0) return true;
    } catch (error) {
      if (!(error instanceof StoreError)) throw error;
      return false;
    }
    const entries = await store.list(RUNS_DIR);
    return entries.some((entry) => entry.kind === 'folder' && entry.name === runId);
  });
}
