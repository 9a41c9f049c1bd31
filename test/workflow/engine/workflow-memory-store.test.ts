import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { replayRun } from '../../../src/artifacts/index.js';
import { listRuns } from '../../../src/runtime/index.js';
import { createMemoryStore, openProject } from '../../../src/store/index.js';
import { advanceWorkflow, startWorkflow, workflowStatus } from '../../../src/workflow/index.js';
import { tempProject } from '../../helpers/temp-project.js';
import { answerWithFile, depsOf } from './fixtures/engine-fixtures.js';

// A workflow driven on a project whose runs are kept in memory: its documents and the ingested files land in the
// folder, its state, snapshots, events and records only in the store.

describe('a workflow on a memory store', () => {
  it('starts, advances with an ingest and completes, with nothing under .agent/', async () => {
    const dir = await tempProject();
    const store = createMemoryStore();
    const project = openProject(dir, { store });
    const deps = depsOf({ ingest: true });
    const started = await startWorkflow(
      project,
      { workflow: 'chain_of_thought', inputs: { problem: 'an idea' }, run_id: 'w1' },
      deps,
    );
    expect(started.status).toBe('running');
    let result = await advanceWorkflow(
      project,
      {
        run_id: 'w1',
        output: answerWithFile('Thought it through.', 'src/idea.ts', 'export const idea = 1;'),
      },
      deps,
    );
    for (let guard = 0; result.status === 'running' && guard < 10; guard += 1) {
      result = await advanceWorkflow(project, { run_id: 'w1', output: 'Next.' }, deps);
    }
    expect(result.status).toBe('complete');
    expect(await readFile(path.join(dir, 'workspace/src/idea.ts'), 'utf8')).toBe('export const idea = 1;\n');
    expect(existsSync(path.join(dir, '.agent'))).toBe(false);

    expect((await listRuns(project)).map((run) => [run.run_id, run.kind, run.status])).toEqual([
      ['w1', 'workflow', 'completed'],
    ]);
    expect(await workflowStatus(project, { run_id: 'w1' }, deps)).toMatchObject({ status: 'complete' });
    const replay = await replayRun(project, 'w1');
    expect(replay.steps.flatMap((step) => step.artifacts.map((artifact) => artifact.path))).toContain(
      'workspace/src/idea.ts',
    );
    expect((await store.list('.agent/runs/w1')).map((entry) => entry.name)).toEqual(
      expect.arrayContaining(['state.json', 'events.jsonl', 'artifacts.jsonl', 'workflow.yaml']),
    );
    expect(existsSync(path.join(dir, '.agent'))).toBe(false);
  });
});
