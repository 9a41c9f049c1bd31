import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseRunId, runEventsPath, runStatePath, UnknownRunError } from '../../../src/project/index.js';
import { listRuns } from '../../../src/runtime/index.js';
import { createMemoryStore, openProject } from '../../../src/store/index.js';
import type { Project } from '../../../src/store/index.js';
import { acquireStateLock } from '../../../src/workflow/state/acquire-state-lock.js';
import {
  createWorkflowState,
  findMissingRevisionEvents,
  listRunningWorkflows,
  readPinnedDefinition,
  readWorkflowState,
  recoverRevisionEvents,
  transactWorkflowState,
  updateWorkflowState,
  workflowDefinitionPath,
} from '../../../src/workflow/index.js';
import { tempProject } from '../../helpers/temp-project.js';
import { DEFINITION_TEXT, newState } from './fixtures/state-fixtures.js';

/** A project whose folder is a real, empty temp dir and whose store is in memory. */
async function memoryProject(): Promise<Project> {
  return openProject(await tempProject(), { store: createMemoryStore() });
}

/** The events stored for a run, parsed. */
async function storedEvents(project: Project, runId: string): Promise<Record<string, unknown>[]> {
  const text = (await project.store.readText(runEventsPath(parseRunId(runId)))) ?? '';
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

const started = () => [{ level: 'INFO' as const, event: 'workflow.started', fields: {} }];

describe('the workflow state on a memory store', () => {
  it('creates, reads, changes and lists a workflow with nothing written to the project folder', async () => {
    const project = await memoryProject();
    const created = await createWorkflowState(project, newState('wf-1'), { events: started });
    expect(await project.store.readText(workflowDefinitionPath(created.run_id))).toBe(DEFINITION_TEXT);
    expect(await readWorkflowState(project, created.run_id)).toEqual(created);
    expect(await readPinnedDefinition(project, created)).toMatchObject({ text: DEFINITION_TEXT });

    const changed = await transactWorkflowState(
      project,
      created.run_id,
      (current) => ({ ...current, agent_calls: current.agent_calls + 1 }),
      { events: () => [{ level: 'INFO', event: 'workflow.step_advanced', fields: { to: 'implement' } }] },
    );
    expect(changed).toMatchObject({ revision: 1, agent_calls: 1 });
    expect(await readWorkflowState(project, created.run_id)).toEqual(changed);
    await expect(updateWorkflowState(project, created.run_id, 0, (current) => current)).rejects.toMatchObject(
      {
        code: 'state_conflict',
      },
    );
    expect((await storedEvents(project, 'wf-1')).map((line) => [line.event, line.state_revision])).toEqual([
      ['workflow.started', 0],
      ['workflow.step_advanced', 1],
    ]);

    expect((await listRunningWorkflows(project)).map((state) => state.run_id)).toEqual(['wf-1']);
    // The runtime's listing reads the same store: the workflow with its pinned definition's two steps.
    expect(await listRuns(project)).toEqual([
      expect.objectContaining({ run_id: 'wf-1', kind: 'workflow', status: 'running', graph: 'feature-dev' }),
    ]);
    expect((await listRuns(project))[0]?.nodes.total).toBe(2);
    expect(await readdir(project.dir)).toEqual([]);
  });

  it('lets exactly one of many simultaneous starters claim a run id', async () => {
    const project = await memoryProject();
    const outcomes = await Promise.allSettled(
      Array.from({ length: 8 }, (_, index) =>
        createWorkflowState(project, newState('wf-race', { feature: `f${String(index)}` })),
      ),
    );
    const won = outcomes.filter((outcome) => outcome.status === 'fulfilled');
    expect(won).toHaveLength(1);
    for (const outcome of outcomes) {
      if (outcome.status === 'rejected') expect(outcome.reason).toMatchObject({ code: 'run_exists' });
    }
    expect(await readWorkflowState(project, parseRunId('wf-race'))).toEqual(won[0]?.value);
  });

  it('refuses a run id another kind of run holds in the store', async () => {
    const project = await memoryProject();
    await project.store.append(runEventsPath(parseRunId('ingested')), '{}\n');
    await expect(createWorkflowState(project, newState('ingested'))).rejects.toMatchObject({
      code: 'run_exists',
    });
    expect(await project.store.list('.agent/runs/ingested')).toEqual([
      { name: 'events.jsonl', kind: 'file' },
    ]);
  });

  it('keeps the state lock in the store: a second taker waits, then gets state_locked', async () => {
    const project = await memoryProject();
    const { run_id: runId } = await createWorkflowState(project, newState('wf-1'));
    const lock = await acquireStateLock(project, runId);
    expect(await project.store.readText('.agent/runs/wf-1/state.lock')).toContain(
      `"pid":${String(process.pid)}`,
    );
    await expect(acquireStateLock(project, runId, { waitMs: 30 })).rejects.toMatchObject({
      code: 'state_locked',
    });
    await lock.release();
    expect(await project.store.readText('.agent/runs/wf-1/state.lock')).toBeUndefined();
    await expect(acquireStateLock(project, parseRunId('nope'))).rejects.toBeInstanceOf(UnknownRunError);
    await expect(readWorkflowState(project, parseRunId('nope'))).rejects.toBeInstanceOf(UnknownRunError);
  });

  it('appends, marked recovered, the events a killed writer never appended to the stored log', async () => {
    const project = await memoryProject();
    const created = await createWorkflowState(project, newState('wf-1'), { events: started });
    // As a writer killed between state.json and events.jsonl leaves it.
    expect(await project.store.remove(runEventsPath(created.run_id))).toBe(true);
    expect(await findMissingRevisionEvents(project, created)).toEqual(started());
    await recoverRevisionEvents(project, created);
    expect(await storedEvents(project, 'wf-1')).toEqual([
      expect.objectContaining({ event: 'workflow.started', state_revision: 0, recovered: true }),
    ]);
    expect(await findMissingRevisionEvents(project, created)).toEqual([]);
  });
});

describe('a start that fails before its state is written', () => {
  it.each([
    ['a memory store', memoryProject],
    ['the files store', async () => openProject(await tempProject())],
  ])('on %s stores nothing of the run and frees its id for a retry', async (_, makeProject) => {
    const project = await makeProject();
    const failing = createWorkflowState(project, newState('wf-1'), {
      beforeFirstState: () => Promise.reject(new Error('snapshot failed')),
    });
    await expect(failing).rejects.toThrow('snapshot failed');
    expect(await project.store.readText(workflowDefinitionPath(parseRunId('wf-1')))).toBeUndefined();
    await expect(readWorkflowState(project, parseRunId('wf-1'))).rejects.toBeInstanceOf(UnknownRunError);
    const retried = await createWorkflowState(project, newState('wf-1'));
    expect(await project.store.readText(runStatePath(retried.run_id))).toContain('"revision": 0');
    if (project.store.kind === 'files') {
      expect(await readdir(path.join(project.dir, '.agent/runs/wf-1'))).toEqual([
        'state.json',
        'workflow.yaml',
      ]);
    }
    await project.store.close();
  });
});
