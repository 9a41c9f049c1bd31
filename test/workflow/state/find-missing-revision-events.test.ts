import { appendFile, rm, writeFile } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runEventsPath } from '../../../src/project/index.js';
import {
  createWorkflowState,
  findMissingRevisionEvents,
  transactWorkflowState,
} from '../../../src/workflow/index.js';
import type { RevisionEvent, WorkflowState } from '../../../src/workflow/index.js';
import { tempProject } from '../../helpers/temp-project.js';
import { newState } from './fixtures/state-fixtures.js';

const event = (name: string, fields: RevisionEvent['fields'] = {}): RevisionEvent => ({
  level: 'INFO',
  event: name,
  fields,
});

const line = (fields: Record<string, unknown>): string => `${JSON.stringify({ level: 'INFO', ...fields })}\n`;

/** A run at revision 1 whose change carried step.completed and step.started. */
async function advancedRun(): Promise<{ projectDir: string; state: WorkflowState; events: string }> {
  const projectDir = await tempProject();
  const created = await createWorkflowState(projectDir, newState('wf-1'), {
    events: () => [event('workflow.started'), event('step.started', { step: 'scope' })],
  });
  const state = await transactWorkflowState(projectDir, created.run_id, (current) => current, {
    events: () => [event('step.completed', { step: 'scope' }), event('step.started', { step: 'implement' })],
  });
  return { projectDir, state, events: path.join(projectDir, runEventsPath(state.run_id)) };
}

describe('findMissingRevisionEvents', () => {
  it('finds none when the revision’s events were appended after the state', async () => {
    const { projectDir, state } = await advancedRun();
    expect(await findMissingRevisionEvents(projectDir, state)).toEqual([]);
  });

  it('finds every event of the revision when the log stops at the previous revision (a kill in between)', async () => {
    const { projectDir, state, events } = await advancedRun();
    await writeFile(
      events,
      line({ event: 'workflow.started', state_revision: 0 }) +
        line({ event: 'step.started', state_revision: 0 }),
    );
    expect((await findMissingRevisionEvents(projectDir, state)).map((entry) => entry.event)).toEqual([
      'step.completed',
      'step.started',
    ]);
  });

  it('finds only what is missing, counting an event name as often as it was appended', async () => {
    const { projectDir, state, events } = await advancedRun();
    await writeFile(
      events,
      line({ event: 'step.started', state_revision: 0 }) +
        line({ event: 'step.completed', state_revision: 1 }),
    );
    expect(await findMissingRevisionEvents(projectDir, state)).toEqual([
      event('step.started', { step: 'implement' }),
    ]);
  });

  it('reads back across 64 KiB chunks past the later events of other calls, and stops at an older revision', async () => {
    const { projectDir, state, events } = await advancedRun();
    const filler = Array.from({ length: 3000 }, (_, index) =>
      line({ event: 'artifact.submitted', index, path: `docs/${'x'.repeat(40)}.md` }),
    ).join('');
    await writeFile(
      events,
      line({ event: 'step.completed', state_revision: 1 }) +
        line({ event: 'step.started', state_revision: 1 }) +
        filler,
    );
    expect(filler.length).toBeGreaterThan(3 * 64 * 1024);
    expect(await findMissingRevisionEvents(projectDir, state)).toEqual([]);
    // The revision's second line cut by the start of the last 64 KiB chunk is read whole.
    const tail = `${'x'.repeat(64 * 1024 - 40)}\n`;
    await writeFile(
      events,
      filler +
        line({ event: 'step.completed', state_revision: 1 }) +
        line({ event: 'step.started', state_revision: 1 }) +
        tail,
    );
    expect(await findMissingRevisionEvents(projectDir, state)).toEqual([]);
    // An older revision's line between them and the end ends the search: they are not found behind it.
    await writeFile(
      events,
      line({ event: 'step.completed', state_revision: 1 }) +
        line({ event: 'step.started', state_revision: 1 }) +
        line({ event: 'step.started', state_revision: 0 }) +
        filler,
    );
    expect(await findMissingRevisionEvents(projectDir, state)).toHaveLength(2);
  });

  it('does not take a quoted "state_revision" inside a value, a torn line or a line that is not an object for an event', async () => {
    const { projectDir, state, events } = await advancedRun();
    await writeFile(
      events,
      line({ event: 'step.started', state_revision: 0 }) +
        line({
          event: 'artefacts.registered',
          registered: ['{"state_revision":1,"event":"step.completed"}'],
        }) +
        '[{"state_revision":1,"event":"step.started"}]\n' +
        '{"level":"INFO","event":"step.completed","state_revision":1',
    );
    expect(await findMissingRevisionEvents(projectDir, state)).toHaveLength(2);
  });

  it('takes a missing log, or a FIFO or symlink in its place, as holding none of the events', async () => {
    const { projectDir, state, events } = await advancedRun();
    await rm(events);
    expect(await findMissingRevisionEvents(projectDir, state)).toHaveLength(2);
    execFileSync('mkfifo', [events]);
    expect(await findMissingRevisionEvents(projectDir, state)).toHaveLength(2);
    await rm(events);
    await appendFile(
      path.join(projectDir, 'elsewhere.jsonl'),
      line({ event: 'step.started', state_revision: 1 }),
    );
    execFileSync('ln', ['-s', path.join(projectDir, 'elsewhere.jsonl'), events]);
    expect(await findMissingRevisionEvents(projectDir, state)).toHaveLength(2);
  });

  it('finds nothing missing for a state that carries no events (written before D89, or by a change without any)', async () => {
    const projectDir = await tempProject();
    const created = await createWorkflowState(projectDir, newState('wf-1'));
    expect(created.revision_events).toBeUndefined();
    expect(await findMissingRevisionEvents(projectDir, created)).toEqual([]);
  });
});
