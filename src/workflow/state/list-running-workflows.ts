import { isRunId, RUNS_DIR } from '../../project/index.js';
import { usingProject } from '../../store/index.js';
import type { ProjectRef } from '../../store/index.js';
import { readWorkflowState } from './read-workflow-state.js';
import type { WorkflowState } from './workflow-state-schema.js';

/**
 * The project's workflows whose status is `running`, oldest first (so `run_id` may be left out when there is
 * exactly one); graph runs, ingest runs and unreadable states are not workflows that can be continued.
 */
export async function listRunningWorkflows(project: ProjectRef): Promise<readonly WorkflowState[]> {
  return usingProject(project, async (opened) => {
    const names = (await opened.store.list(RUNS_DIR))
      .filter((entry) => entry.kind === 'folder')
      .map((entry) => entry.name);
    const states = await Promise.all(
      names.filter(isRunId).map((runId) => readWorkflowState(opened, runId).catch(() => null)),
    );
    return states
      .filter((state): state is WorkflowState => state?.status === 'running')
      .sort((a, b) => a.started_at.localeCompare(b.started_at) || a.run_id.localeCompare(b.run_id));
  });
}
