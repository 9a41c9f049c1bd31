import { listRecordedRuns, usingProject } from '../../store/index.js';
import type { ProjectRef } from '../../store/index.js';
import { readWorkflowState } from './read-workflow-state.js';
import type { WorkflowState } from '../../runs/index.js';

/**
 * The project's workflows whose status is `running`, oldest first (so `run_id` may be left out when there is
 * exactly one); graph runs, ingest runs and unreadable states are not workflows that can be continued.
 */
export async function listRunningWorkflows(project: ProjectRef): Promise<readonly WorkflowState[]> {
  return usingProject(project, async (opened) => {
    const runIds = await listRecordedRuns(opened);
    const states = await Promise.all(
      runIds.map((runId) => readWorkflowState(opened, runId).catch(() => null)),
    );
    return states
      .filter((state): state is WorkflowState => state?.status === 'running')
      .sort((a, b) => a.started_at.localeCompare(b.started_at) || a.run_id.localeCompare(b.run_id));
  });
}
