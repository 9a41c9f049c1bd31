import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseRunId } from '../../../src/project/index.js';
import { listRuns } from '../../../src/runtime/index.js';
import {
  advanceWorkflow,
  readWorkflowState,
  startWorkflow,
  updateWorkflowState,
  WorkflowStateError,
} from '../../../src/workflow/index.js';
import { tempProject } from '../../helpers/temp-project.js';
import { refusal, stateBytes } from './fixtures/engine-fixtures.js';

const HOST = 'ARTIFACT_INGEST_HOST';
const start = (projectDir: string, runId: string, env: Record<string, string>) =>
  startWorkflow(
    projectDir,
    { workflow: 'chain_of_thought', inputs: { problem: 'p' }, run_id: runId },
    { durability: 'none', env },
  );

describe('a workflow run records its host', () => {
  it('writes ARTIFACT_INGEST_HOST into its first state, right after run_id, and keeps it on every change', async () => {
    const projectDir = await tempProject();
    await start(projectDir, 'w1', { [HOST]: 'ci-runner-7' });
    const first = await stateBytes(projectDir, 'w1');
    expect(first).toContain(
      '  "run_id": "w1",\n  "host": "ci-runner-7",\n  "workflow": "chain_of_thought",\n',
    );

    await advanceWorkflow(
      projectDir,
      { run_id: 'w1', output: 'a first thought' },
      {
        durability: 'none',
        env: { [HOST]: 'another-machine' },
      },
    );
    const advanced = await readWorkflowState(projectDir, parseRunId('w1'));
    expect(advanced.revision).toBeGreaterThan(0);
    expect(advanced.host).toBe('ci-runner-7');
  });

  it("records this machine's host name when the variable is unset or empty", async () => {
    const projectDir = await tempProject();
    await start(projectDir, 'unset', {});
    await start(projectDir, 'empty', { [HOST]: '' });
    expect((await readWorkflowState(projectDir, parseRunId('unset'))).host).toBe(hostname());
    expect((await readWorkflowState(projectDir, parseRunId('empty'))).host).toBe(hostname());
  });

  it('refuses a change that alters the host, as it refuses one of run_id', async () => {
    const projectDir = await tempProject();
    await start(projectDir, 'w1', { [HOST]: 'laptop' });
    const changed = updateWorkflowState(projectDir, parseRunId('w1'), 0, (current) => ({
      ...current,
      host: 'elsewhere',
    }));
    await expect(changed).rejects.toBeInstanceOf(WorkflowStateError);
    await expect(changed).rejects.toThrow('a change may not alter host of workflow run w1');
  });

  it('refuses an unprintable ARTIFACT_INGEST_HOST with invalid_config before anything is written', async () => {
    const projectDir = await tempProject();
    const message = await refusal(start(projectDir, 'w1', { [HOST]: 'ci\n7' }), 'invalid_config');
    expect(message).toContain(
      'ARTIFACT_INGEST_HOST: holds a control or invisible character (U+000A, character 3)',
    );
    expect(existsSync(path.join(projectDir, '.agent'))).toBe(false);
  });

  it('reads and lists a workflow state written before runs recorded their host', async () => {
    const projectDir = await tempProject();
    await start(projectDir, 'old', { [HOST]: 'laptop' });
    const file = path.join(projectDir, '.agent/runs/old/state.json');
    const state = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
    delete state.host;
    await writeFile(file, `${JSON.stringify(state, null, 2)}\n`);

    expect(await readWorkflowState(projectDir, parseRunId('old'))).not.toHaveProperty('host');
    const [summary] = await listRuns(projectDir);
    expect(summary).toMatchObject({ run_id: 'old', kind: 'workflow', status: 'running' });
    expect(summary).not.toHaveProperty('host');
    // Advancing it keeps it without one: the host is the one that started the run, never a later caller's.
    await advanceWorkflow(
      projectDir,
      { run_id: 'old', output: 'a thought' },
      {
        durability: 'none',
        env: { [HOST]: 'ci-runner-7' },
      },
    );
    expect(await readWorkflowState(projectDir, parseRunId('old'))).not.toHaveProperty('host');
  });
});
