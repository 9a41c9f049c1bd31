import { isRunId, RUNS_DIR } from '../../project/index.js';
import type { RunId } from '../../project/index.js';
import { usingProject } from '../../store/index.js';
import type { ProjectRef } from '../../store/index.js';

/** The ids of the project's run folders under `.agent/runs/`, sorted; folders that cannot be run ids are left out. */
export async function listRecordedRuns(project: ProjectRef): Promise<RunId[]> {
  const entries = await usingProject(project, ({ store }) => store.list(RUNS_DIR));
  return entries
    .filter((entry) => entry.kind === 'folder')
    .map((entry) => entry.name)
    .filter(isRunId)
    .sort();
}

/** Whether the project keeps a folder for the run `runId` under `.agent/runs/` (what a run id must name). */
export async function hasRunFolder(project: ProjectRef, runId: RunId): Promise<boolean> {
  const entries = await usingProject(project, ({ store }) => store.list(RUNS_DIR));
  return entries.some((entry) => entry.kind === 'folder' && entry.name === runId);
}
