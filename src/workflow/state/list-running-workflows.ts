import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { isRunId, RUNS_DIR } from '../../project/index.js';
import { readWorkflowState } from './read-workflow-state.js';
import type { WorkflowState } from './workflow-state-schema.js';

/**
 * The project's workflows whose status is `running`, oldest first (so `run_id` may be left out when there is
 * exactly one); graph runs, ingest runs and unreadable states are not workflows that can be continued.
 */
export async function listRunningWorkflows(projectDir: string): Promise<readonly WorkflowState[]> {
  let names: string[];
  try {
    names = (await readdir(path.join(projectDir, RUNS_DIR), { withFileTypes: true }))
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const states = await Promise.all(
    names.filter(isRunId).map((runId) => readWorkflowState(projectDir, runId).catch(() => null)),
  );
  return states
    .filter((state): state is WorkflowState => state?.status === 'running')
    .sort((a, b) => a.started_at.localeCompare(b.started_at) || a.run_id.localeCompare(b.run_id));
}
