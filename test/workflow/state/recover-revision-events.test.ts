import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runEventsPath } from '../../../src/project/index.js';
import {
  createWorkflowState,
  recoverRevisionEvents,
  transactWorkflowState,
} from '../../../src/workflow/index.js';
import type { RevisionEvent, WorkflowState } from '../../../src/workflow/index.js';
import { acquireStateLock } from '../../../src/workflow/state/acquire-state-lock.js';
import { readEvents, tempProject } from '../../helpers/temp-project.js';
import { newState } from './fixtures/state-fixtures.js';

const event = (name: string, fields: RevisionEvent['fields'] = {}): RevisionEvent => ({
  level: 'INFO',
  event: name,
  fields,
});

/** A run at revision 1 whose log lost that revision's events, as a writer killed between the two leaves it. */
async function runKilledAfterState(): Promise<{ projectDir: string; state: WorkflowState }> {
  const projectDir = await tempProject();
  const created = await createWorkflowState(projectDir, newState('wf-1'), {
    events: () => [event('workflow.started'), event('step.started', { step: 'scope' })],
  });
  const events = path.join(projectDir, runEventsPath(created.run_id));
  const started = await readEvents(projectDir, created.run_id);
  const state = await transactWorkflowState(projectDir, created.run_id, (current) => current, {
    events: () => [event('step.completed', { step: 'scope' }), event('step.started', { step: 'implement' })],
  });
  await writeFile(events, started.map((line) => `${JSON.stringify(line)}\n`).join(''));
  return { projectDir, state };
}

const namesOf = (lines: readonly Record<string, unknown>[]): string[] =>
  lines.map(
    (line) =>
      `${String(line.event)}@${String(line.state_revision)}${line.recovered === true ? ' recovered' : ''}`,
  );

describe('recoverRevisionEvents', () => {
  it('appends the missing events of the current revision once, marked recovered; a second call appends nothing', async () => {
    const { projectDir, state } = await runKilledAfterState();
    const recovered = await recoverRevisionEvents(projectDir, state);
    expect(recovered).toEqual(state);
    await recoverRevisionEvents(projectDir, state);
    const lines = await readEvents(projectDir, state.run_id);
    expect(namesOf(lines)).toEqual([
      'workflow.started@0',
      'step.started@0',
      'step.completed@1 recovered',
      'step.started@1 recovered',
    ]);
    expect(lines[3]).toMatchObject({ run_id: 'wf-1', step: 'implement' });
  });

  it('appends each missing event once when two recoveries run at once', async () => {
    const { projectDir, state } = await runKilledAfterState();
    await Promise.all([recoverRevisionEvents(projectDir, state), recoverRevisionEvents(projectDir, state)]);
    expect(namesOf(await readEvents(projectDir, state.run_id)).slice(2)).toEqual([
      'step.completed@1 recovered',
      'step.started@1 recovered',
    ]);
  });

  it('leaves them to a live holder of the state lock, whose change appends them before its own', async () => {
    const { projectDir, state } = await runKilledAfterState();
    const lock = await acquireStateLock(projectDir, state.run_id);
    try {
      expect(await recoverRevisionEvents(projectDir, state, { lockWaitMs: 50 })).toBe(state);
      expect(namesOf(await readEvents(projectDir, state.run_id))).toHaveLength(2);
    } finally {
      await lock.release();
    }
    await transactWorkflowState(projectDir, state.run_id, (current) => current, {
      events: () => [event('workflow.aborted')],
    });
    expect(namesOf(await readEvents(projectDir, state.run_id)).slice(2)).toEqual([
      'step.completed@1 recovered',
      'step.started@1 recovered',
      'workflow.aborted@2',
    ]);
  });
});
