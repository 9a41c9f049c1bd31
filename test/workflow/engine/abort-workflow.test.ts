import { describe, expect, it } from 'vitest';
import {
  abortWorkflow,
  advanceWorkflow,
  startWorkflow,
  workflowStatus,
} from '../../../src/workflow/index.js';
import { readEvents, tempProject } from '../../helpers/temp-project.js';
import { depsOf, refusal, stateBytes } from './fixtures/engine-fixtures.js';

describe('abortWorkflow', () => {
  it('stops the run, keeps its folder and returns the final status', async () => {
    const projectDir = await tempProject();
    await startWorkflow(
      projectDir,
      { workflow: 'feature-dev', inputs: { feature: 'f' }, run_id: 'a' },
      depsOf(),
    );
    const status = await abortWorkflow(projectDir, { reason: 'wrong feature' }, depsOf());
    expect(status).toMatchObject({
      run_id: 'a',
      status: 'aborted',
      step: 'scope',
      instructions:
        'Workflow feature-dev (run a) was aborted: wrong feature. Call workflow_start to start another.',
      next_action: { tool: 'workflow_start', expecting: 'workflow' },
    });
    expect(JSON.parse(await stateBytes(projectDir, 'a'))).toMatchObject({
      status: 'aborted',
      reason: 'wrong feature',
      finished_at: expect.any(String) as string,
    });
    expect((await readEvents(projectDir, 'a')).at(-1)).toMatchObject({
      event: 'workflow.aborted',
      run_id: 'a',
      step: 'scope',
      reason: 'wrong feature',
    });
    // No longer running: the run must be named, and it cannot be changed again.
    await refusal(workflowStatus(projectDir), 'not_started');
    expect(await workflowStatus(projectDir, { run_id: 'a' })).toEqual(status);
    const before = await stateBytes(projectDir, 'a');
    await refusal(abortWorkflow(projectDir, { run_id: 'a' }, depsOf()), 'not_running');
    await refusal(advanceWorkflow(projectDir, { run_id: 'a', output: 'x' }, depsOf()), 'not_running');
    expect(await stateBytes(projectDir, 'a')).toBe(before);
  });

  it('refuses when nothing runs', async () => {
    const projectDir = await tempProject();
    await refusal(abortWorkflow(projectDir), 'not_started');
  });
});
