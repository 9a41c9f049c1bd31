import { describe, expect, it } from 'vitest';
import { listRuns, readRun } from '../../../src/runtime/index.js';
import {
  createWorkflowState,
  listRunningWorkflows,
  updateWorkflowState,
} from '../../../src/workflow/index.js';
import { tempProject } from '../../helpers/temp-project.js';
import { newState } from './fixtures/state-fixtures.js';

const at = (minute: number) => () => new Date(Date.UTC(2026, 0, 1, 0, minute));

describe('listRunningWorkflows', () => {
  it('is empty in a project without runs', async () => {
    expect(await listRunningWorkflows(await tempProject())).toEqual([]);
  });

  it('lists only running workflows, oldest first, past graph runs, ingest runs and broken states', async () => {
    const projectDir = await tempProject({
      '.agent/runs/ingest-run/events.jsonl': '{}\n',
      '.agent/runs/graph-run/state.json': '{"version": 1, "graph": {}}',
      '.agent/runs/broken/state.json': '{',
    });
    const late = await createWorkflowState(projectDir, newState('wf-late'), { now: at(9) });
    const early = await createWorkflowState(projectDir, newState('wf-early'), { now: at(1) });
    const aborted = await createWorkflowState(projectDir, newState('wf-aborted'), { now: at(5) });
    await updateWorkflowState(projectDir, aborted.run_id, 0, (current) => ({
      ...current,
      status: 'aborted',
      reason: 'the user stopped it',
      finished_at: current.updated_at,
    }));
    expect((await listRunningWorkflows(projectDir)).map((state) => state.run_id)).toEqual([
      early.run_id,
      late.run_id,
    ]);
  });
});

// The graph runtime's `runs` and `show` meet workflow states in the same folder.
describe("the runtime's listRuns beside a workflow state", () => {
  it('lists a workflow run as a workflow run, and show points at artifact-ingest workflow', async () => {
    const projectDir = await tempProject();
    const { run_id: runId } = await createWorkflowState(projectDir, newState('wf-1'));
    const runs = await listRuns(projectDir);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ run_id: 'wf-1', kind: 'workflow', status: 'running' });
    expect(runs[0]?.error).toBeUndefined();
    await expect(readRun(projectDir, runId)).rejects.toMatchObject({
      code: 'not_a_graph_run',
      message: expect.stringContaining("'artifact-ingest workflow status wf-1'") as unknown,
    });
  });
});
