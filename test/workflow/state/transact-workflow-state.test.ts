import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runStatePath } from '../../../src/project/index.js';
import type { RunId } from '../../../src/project/index.js';
import {
  createWorkflowState,
  readWorkflowState,
  transactWorkflowState,
  updateWorkflowState,
  WorkflowStateError,
} from '../../../src/workflow/index.js';
import type { WorkflowState } from '../../../src/workflow/index.js';
import { readEvents, tempProject } from '../../helpers/temp-project.js';
import { newState } from './fixtures/state-fixtures.js';

const stateText = (projectDir: string, runId: RunId): Promise<string> =>
  readFile(path.join(projectDir, runStatePath(runId)), 'utf8');

const addOutput =
  (name: string, value: string) =>
  (current: WorkflowState): WorkflowState => ({ ...current, outputs: { ...current.outputs, [name]: value } });

describe('updateWorkflowState', () => {
  it('writes the change with revision + 1 and a new updated_at, and reads it back', async () => {
    const projectDir = await tempProject();
    const { run_id: runId } = await createWorkflowState(projectDir, newState('wf-1'), {
      now: () => new Date('2026-01-01T00:00:00.000Z'),
    });
    const next = await updateWorkflowState(
      projectDir,
      runId,
      0,
      (current) => ({
        ...current,
        artefacts: [...current.artefacts, 'docs/scope.md'],
        outputs: { scope: 'the scope' },
      }),
      { now: () => new Date('2026-01-01T00:01:00.000Z') },
    );
    expect(next).toMatchObject({
      revision: 1,
      updated_at: '2026-01-01T00:01:00.000Z',
      artefacts: ['docs/scope.md'],
    });
    expect(await readWorkflowState(projectDir, runId)).toEqual(next);
  });

  it('refuses a stale revision with state_conflict and leaves the file byte for byte unchanged', async () => {
    const projectDir = await tempProject();
    const { run_id: runId } = await createWorkflowState(projectDir, newState('wf-1'));
    await updateWorkflowState(projectDir, runId, 0, addOutput('scope', 'first'));
    const before = await stateText(projectDir, runId);
    const error = await updateWorkflowState(projectDir, runId, 0, addOutput('scope', 'second')).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(WorkflowStateError);
    expect(error).toMatchObject({ code: 'state_conflict' });
    expect((error as Error).message).toBe(
      'workflow run wf-1 was changed by another call (revision 1, expected 0); nothing was changed: call workflow_status and retry',
    );
    expect(await stateText(projectDir, runId)).toBe(before);
  });

  it.each([
    [
      'alters a fixed field',
      (s: WorkflowState): WorkflowState => ({ ...s, workflow: 'other' }),
      'state_invalid',
      /may not alter workflow/,
    ],
    [
      'makes an invalid state',
      (s: WorkflowState): WorkflowState => ({ ...s, artefacts: ['../outside.md'] }),
      'state_invalid',
      /artefacts\.0: must be a project-relative path/,
    ],
    [
      'completes without a summary',
      (s: WorkflowState): WorkflowState => ({ ...s, status: 'complete', finished_at: s.updated_at }),
      'state_invalid',
      /summary: is required/,
    ],
    [
      'throws',
      (): WorkflowState => {
        throw new WorkflowStateError('state_conflict', 'the engine refused');
      },
      'state_conflict',
      /the engine refused/,
    ],
  ])('writes nothing and frees the lock when the change %s', async (_, change, code, message) => {
    const projectDir = await tempProject();
    const { run_id: runId } = await createWorkflowState(projectDir, newState('wf-1'));
    const before = await stateText(projectDir, runId);
    const error = await updateWorkflowState(projectDir, runId, 0, change).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code });
    expect((error as Error).message).toMatch(message);
    expect(await stateText(projectDir, runId)).toBe(before);
    expect(await readdir(path.join(projectDir, '.agent/runs/wf-1'))).not.toContain('state.lock');
    await expect(updateWorkflowState(projectDir, runId, 0, addOutput('a', 'b'))).resolves.toMatchObject({
      revision: 1,
    });
  });

  it('hands the change a frozen state, so a change cannot edit it in place', async () => {
    const projectDir = await tempProject();
    const { run_id: runId } = await createWorkflowState(projectDir, newState('wf-1'));
    const before = await stateText(projectDir, runId);
    const error = await updateWorkflowState(projectDir, runId, 0, (current) => {
      (current.artefacts as string[]).push('docs/x.md');
      return current;
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TypeError);
    expect(await stateText(projectDir, runId)).toBe(before);
  });

  it('a completed workflow keeps its summary and finish time', async () => {
    const projectDir = await tempProject();
    const { run_id: runId } = await createWorkflowState(projectDir, newState('wf-1'));
    const done = await updateWorkflowState(projectDir, runId, 0, (current) => ({
      ...current,
      status: 'complete',
      finished_at: '2026-01-01T00:05:00.000Z',
      summary: {
        workflow: 'feature-dev',
        completed_at: '2026-01-01T00:05:00.000Z',
        duration_ms: 300_000,
        steps_completed: 2,
        results: { scope: 's' },
      },
    }));
    expect(await readWorkflowState(projectDir, runId)).toEqual(done);
  });
});

describe('transactWorkflowState', () => {
  it('serializes many calls of one process on one run: nothing is lost', async () => {
    const projectDir = await tempProject();
    const { run_id: runId } = await createWorkflowState(projectDir, newState('wf-1'));
    await Promise.all(
      Array.from({ length: 25 }, (_, index) =>
        transactWorkflowState(projectDir, runId, addOutput(`call-${String(index)}`, 'done'), {
          durability: 'none',
        }),
      ),
    );
    const state = await readWorkflowState(projectDir, runId);
    expect(state.revision).toBe(25);
    expect(Object.keys(state.outputs)).toHaveLength(25);
  });

  it('keeps many runs side by side apart', async () => {
    const projectDir = await tempProject();
    const runIds = await Promise.all(
      Array.from(
        { length: 12 },
        async (_, index) =>
          (
            await createWorkflowState(
              projectDir,
              newState(`wf-${String(index)}`, { feature: `f${String(index)}` }),
            )
          ).run_id,
      ),
    );
    await Promise.all(
      runIds.flatMap((runId) =>
        Array.from({ length: 5 }, (_, pass) =>
          transactWorkflowState(
            projectDir,
            runId,
            (current) => ({
              ...current,
              artefacts: [...current.artefacts, `docs/${runId}/${String(pass)}.md`],
            }),
            { durability: 'none' },
          ),
        ),
      ),
    );
    for (const [index, runId] of runIds.entries()) {
      const state = await readWorkflowState(projectDir, runId);
      expect(state.revision).toBe(5);
      expect(state.inputs).toEqual({ feature: `f${String(index)}` });
      expect([...state.artefacts].sort()).toEqual(
        [0, 1, 2, 3, 4].map((pass) => `docs/${runId}/${String(pass)}.md`),
      );
    }
  });

  it('throws UnknownRunError for a run that does not exist', async () => {
    const projectDir = await tempProject();
    await createWorkflowState(projectDir, newState('wf-1'));
    const { run_id: missing } = newState('wf-missing');
    await expect(transactWorkflowState(projectDir, missing, (s) => s)).rejects.toMatchObject({
      code: 'unknown_run',
    });
  });

  it('keeps the change’s events in the state it writes and appends them with state_revision right after', async () => {
    const projectDir = await tempProject();
    const { run_id: runId } = await createWorkflowState(projectDir, newState('wf-1'));
    let seenAt: number | undefined;
    const next = await transactWorkflowState(projectDir, runId, addOutput('scope', 'done'), {
      events: (written) => {
        seenAt = written.revision;
        return [
          {
            level: 'INFO',
            event: 'step.completed',
            fields: { step: 'scope', output: String(written.outputs['scope']) },
          },
        ];
      },
    });
    expect(seenAt).toBe(1);
    expect(next.revision_events).toEqual([
      { level: 'INFO', event: 'step.completed', fields: { step: 'scope', output: 'done' } },
    ]);
    expect(await readWorkflowState(projectDir, runId)).toEqual(next);
    expect(await readEvents(projectDir, runId)).toEqual([
      expect.objectContaining({
        event: 'step.completed',
        run_id: 'wf-1',
        step: 'scope',
        output: 'done',
        state_revision: 1,
      }),
    ]);
    expect((await readEvents(projectDir, runId))[0]).not.toHaveProperty('recovered');
  });

  it('never carries the previous revision’s events into a change that makes none', async () => {
    const projectDir = await tempProject();
    const { run_id: runId } = await createWorkflowState(projectDir, newState('wf-1'));
    await transactWorkflowState(projectDir, runId, addOutput('scope', 'one'), {
      events: () => [{ level: 'INFO', event: 'step.completed', fields: {} }],
    });
    const next = await transactWorkflowState(projectDir, runId, addOutput('scope', 'two'));
    expect(next.revision_events).toBeUndefined();
    expect((await readEvents(projectDir, runId)).map((line) => line.state_revision)).toEqual([1]);
  });

  it('refuses events that are not valid (a bad name), writing nothing', async () => {
    const projectDir = await tempProject();
    const { run_id: runId } = await createWorkflowState(projectDir, newState('wf-1'));
    const before = await stateText(projectDir, runId);
    await expect(
      transactWorkflowState(projectDir, runId, addOutput('scope', 'x'), {
        events: () => [{ level: 'INFO', event: 'Not An Event', fields: {} }],
      }),
    ).rejects.toMatchObject({ code: 'state_invalid' });
    expect(await stateText(projectDir, runId)).toBe(before);
  });
});
