import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { advanceWorkflow, startWorkflow, workflowStatus } from '../../../src/workflow/index.js';
import { readEvents, tempProject } from '../../helpers/temp-project.js';
import { depsOf } from './fixtures/engine-fixtures.js';

// Issue 23: a process killed after writing state.json and before its events (or terminal.json) loses nothing:
// the next call on the run does what it left undone (D89).

const eventsFile = (projectDir: string, runId: string): string =>
  path.join(projectDir, '.agent/runs', runId, 'events.jsonl');

/** Cuts events.jsonl back to what it held before revision `revision`'s events, as a kill right after the state does. */
async function loseEventsOf(projectDir: string, runId: string, revision: number): Promise<void> {
  const kept = (await readEvents(projectDir, runId)).filter(
    (line) => typeof line.state_revision !== 'number' || line.state_revision < revision,
  );
  await writeFile(eventsFile(projectDir, runId), kept.map((line) => `${JSON.stringify(line)}\n`).join(''));
}

const stepEvents = (lines: readonly Record<string, unknown>[]): string[] =>
  lines
    .filter((line) => typeof line.state_revision === 'number')
    .map(
      (line) =>
        `${String(line.event)} ${String(line.step ?? line.state)}${line.recovered === true ? ' (recovered)' : ''}`,
    );

describe('selectWorkflowRun: what a kill after the state left undone', () => {
  it('appends the lost events of the run’s state first, marked recovered, and never twice', async () => {
    const projectDir = await tempProject();
    const deps = depsOf();
    await startWorkflow(
      projectDir,
      { workflow: 'chain_of_thought', inputs: { problem: 'p' }, run_id: 'cot' },
      deps,
    );
    await advanceWorkflow(projectDir, { output: 'a\nb' }, deps);
    await loseEventsOf(projectDir, 'cot', 1);
    expect(stepEvents(await readEvents(projectDir, 'cot'))).toEqual([
      'workflow.started undefined',
      'step.started decompose',
    ]);

    await workflowStatus(projectDir, { run_id: 'cot' }, deps);
    await workflowStatus(projectDir, {}, deps);
    await advanceWorkflow(projectDir, { output: 'first analysis' }, deps);
    expect(stepEvents(await readEvents(projectDir, 'cot'))).toEqual([
      'workflow.started undefined',
      'step.started decompose',
      'step.completed decompose (recovered)',
      'step.started analyze_first (recovered)',
      'step.completed analyze_first',
      'step.started synthesize',
    ]);
  });

  it('an advance from a state whose events were lost appends them before its own', async () => {
    const projectDir = await tempProject();
    const deps = depsOf();
    await startWorkflow(
      projectDir,
      { workflow: 'chain_of_thought', inputs: { problem: 'p' }, run_id: 'cot' },
      deps,
    );
    await advanceWorkflow(projectDir, { output: 'a\nb' }, deps);
    await loseEventsOf(projectDir, 'cot', 1);
    await advanceWorkflow(projectDir, { run_id: 'cot', output: 'first analysis' }, deps);
    expect(stepEvents(await readEvents(projectDir, 'cot')).slice(2)).toEqual([
      'step.completed decompose (recovered)',
      'step.started analyze_first (recovered)',
      'step.completed analyze_first',
      'step.started synthesize',
    ]);
  });

  it('writes the terminal.json an ending state declares when it is missing, without a second run.terminal', async () => {
    const projectDir = await tempProject();
    const deps = depsOf();
    await startWorkflow(
      projectDir,
      { workflow: 'chain_of_thought', inputs: { problem: 'p' }, run_id: 'cot' },
      deps,
    );
    await advanceWorkflow(projectDir, { output: 'a\nb' }, deps);
    await advanceWorkflow(projectDir, { output: 'first analysis' }, deps);
    const completed = await advanceWorkflow(projectDir, { output: 'the solution' }, deps);
    expect(completed.status).toBe('complete');
    const terminalFile = path.join(projectDir, '.agent/runs/cot/terminal.json');
    const written = await readFile(terminalFile, 'utf8');
    await rm(terminalFile);

    await workflowStatus(projectDir, { run_id: 'cot' }, deps);
    expect(await readFile(terminalFile, 'utf8')).toBe(written);
    const lines = await readEvents(projectDir, 'cot');
    expect(lines.filter((line) => line.event === 'run.terminal')).toEqual([
      expect.objectContaining({ state: 'done', state_revision: 3 }),
    ]);
    expect(stepEvents(lines).slice(-3)).toEqual([
      'step.completed synthesize',
      'workflow.completed undefined',
      'run.terminal done',
    ]);
  });
});
