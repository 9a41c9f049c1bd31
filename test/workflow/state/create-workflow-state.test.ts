import { access, mkdir, readdir, readFile, symlink } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseNodeId, runStatePath } from '../../../src/project/index.js';
import {
  createWorkflowState,
  readWorkflowState,
  workflowDefinitionPath,
  WorkflowStateError,
} from '../../../src/workflow/index.js';
import { readEvents, tempProject } from '../../helpers/temp-project.js';
import { DEFINITION, DEFINITION_TEXT, newState } from './fixtures/state-fixtures.js';

describe('createWorkflowState', () => {
  it('writes state.json at revision 0 and the pinned definition, and reads back the same state', async () => {
    const projectDir = await tempProject();
    const created = await createWorkflowState(
      projectDir,
      newState('wf-1', { feature: 'login', tasks: ['a', 'b'] }),
      {
        now: () => new Date('2026-01-02T03:04:05.000Z'),
      },
    );
    expect(created).toMatchObject({
      kind: 'workflow',
      version: 1,
      run_id: 'wf-1',
      workflow: 'feature-dev',
      definition_hash: DEFINITION.hash,
      definition_path: '.agent/runs/wf-1/workflow.yaml',
      inputs: { feature: 'login', tasks: ['a', 'b'] },
      status: 'running',
      step: 'scope',
      stepType: 'action',
      step_index: 0,
      tasks: {},
      outputs: {},
      artefacts: [],
      step_artefacts: [],
      started_at: '2026-01-02T03:04:05.000Z',
      updated_at: '2026-01-02T03:04:05.000Z',
      revision: 0,
    });
    expect(await readWorkflowState(projectDir, created.run_id)).toEqual(created);
    const onDisk = JSON.parse(
      await readFile(path.join(projectDir, runStatePath(created.run_id)), 'utf8'),
    ) as unknown;
    expect(onDisk).toEqual(created);
    expect(await readFile(path.join(projectDir, workflowDefinitionPath(created.run_id)), 'utf8')).toBe(
      DEFINITION_TEXT,
    );
  });

  it('keeps the start’s events in the first state and appends them after it; beforeFirstState runs before state.json exists', async () => {
    const projectDir = await tempProject();
    const order: string[] = [];
    const created = await createWorkflowState(projectDir, newState('wf-1'), {
      beforeFirstState: async (first) => {
        order.push(`before ${first.step}`);
        await expect(access(path.join(projectDir, runStatePath(first.run_id)))).rejects.toMatchObject({
          code: 'ENOENT',
        });
        await access(path.join(projectDir, '.agent/runs/wf-1/workflow.yaml'));
      },
      events: (first) => [{ level: 'INFO', event: 'workflow.started', fields: { step: first.step } }],
    });
    expect(order).toEqual(['before scope']);
    expect(created.revision_events).toEqual([
      { level: 'INFO', event: 'workflow.started', fields: { step: 'scope' } },
    ]);
    expect(await readWorkflowState(projectDir, created.run_id)).toEqual(created);
    expect(await readEvents(projectDir, created.run_id)).toEqual([
      expect.objectContaining({ event: 'workflow.started', step: 'scope', state_revision: 0 }),
    ]);
    // The state lock was held only while the run was being created.
    expect(await readdir(path.join(projectDir, '.agent/runs/wf-1'))).not.toContain('state.lock');
  });

  it('keeps the pass of a first loop or ralph step', async () => {
    const projectDir = await tempProject();
    const loop = await createWorkflowState(projectDir, {
      ...newState('wf-loop'),
      step: parseNodeId('implement'),
      stepType: 'loop',
      step_index: 1,
      tasks: { implement: ['x', 'y'] },
      task: { index: 1, total: 2, value: 'x' },
    });
    expect(await readWorkflowState(projectDir, loop.run_id)).toMatchObject({
      step_index: 1,
      tasks: { implement: ['x', 'y'] },
      task: { index: 1, total: 2, value: 'x' },
    });
  });

  it('refuses a run id whose folder exists, whatever made it, and changes nothing', async () => {
    const projectDir = await tempProject({ '.agent/runs/taken/events.jsonl': '{}\n' });
    const first = await createWorkflowState(projectDir, newState('wf-1'));
    for (const runId of ['wf-1', 'taken']) {
      const error = await createWorkflowState(projectDir, newState(runId)).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(WorkflowStateError);
      expect(error).toMatchObject({ code: 'run_exists' });
      expect((error as Error).message).toContain(`run ${runId} already exists`);
    }
    expect(await readWorkflowState(projectDir, first.run_id)).toEqual(first);
    expect(await readdir(path.join(projectDir, '.agent/runs/taken'))).toEqual(['events.jsonl']);
  });

  it('lets exactly one of many simultaneous starters claim a run id', async () => {
    const projectDir = await tempProject();
    const outcomes = await Promise.allSettled(
      Array.from({ length: 8 }, (_, index) =>
        createWorkflowState(projectDir, newState('wf-race', { feature: `f${String(index)}` })),
      ),
    );
    const won = outcomes.filter((outcome) => outcome.status === 'fulfilled');
    expect(won).toHaveLength(1);
    for (const outcome of outcomes) {
      if (outcome.status === 'rejected') expect(outcome.reason).toMatchObject({ code: 'run_exists' });
    }
    expect(await readWorkflowState(projectDir, newState('wf-race').run_id)).toEqual(won[0]?.value);
  });

  it('refuses a hash that is not the sha256 of the definition text, writing nothing', async () => {
    const projectDir = await tempProject();
    const initial = { ...newState('wf-1'), definition: { ...DEFINITION, hash: 'a'.repeat(64) } };
    await expect(createWorkflowState(projectDir, initial)).rejects.toMatchObject({
      code: 'definition_mismatch',
    });
    await expect(readdir(path.join(projectDir, '.agent'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('refuses an invalid first state before creating the run folder', async () => {
    const projectDir = await tempProject();
    const initial = { ...newState('wf-1'), ralphIteration: 2 };
    await expect(createWorkflowState(projectDir, initial)).rejects.toMatchObject({ code: 'state_invalid' });
    await expect(readdir(path.join(projectDir, '.agent'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('refuses a symlinked .agent/runs instead of writing through it', async () => {
    const projectDir = await tempProject();
    const elsewhere = await tempProject();
    await mkdir(path.join(projectDir, '.agent'));
    await symlink(elsewhere, path.join(projectDir, '.agent/runs'));
    await expect(createWorkflowState(projectDir, newState('wf-1'))).rejects.toMatchObject({
      code: 'run_dir_unusable',
    });
    expect(await readdir(elsewhere)).toEqual([]);
  });
});
