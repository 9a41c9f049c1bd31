import { describe, expect, it } from 'vitest';
import { advanceWorkflow, startWorkflow, workflowStatus } from '../../../src/workflow/index.js';
import type { ObservedPass, WorkflowObserver } from '../../../src/workflow/index.js';
import { tempProject } from '../../helpers/temp-project.js';
import { depsOf, refusal, stateBytes } from './fixtures/engine-fixtures.js';

const start = (projectDir: string, runId: string, problem = 'p') =>
  startWorkflow(projectDir, { workflow: 'chain_of_thought', inputs: { problem }, run_id: runId }, depsOf());

describe('workflowStatus and run selection', () => {
  it('with no workflow running says the spec sentence', async () => {
    const projectDir = await tempProject();
    expect(await refusal(workflowStatus(projectDir), 'not_started')).toBe(
      'Workflow not started. Call workflow_start first.',
    );
  });

  it('finds the one running workflow when run_id is left out, and changes nothing', async () => {
    const projectDir = await tempProject();
    const started = await start(projectDir, 'only');
    const before = await stateBytes(projectDir, 'only');
    // The default observer adds the pass's reconciliation: nothing changed yet.
    const observed = { ...started, reconciliation: { unregistered: [], phantom: [] } };
    expect(await workflowStatus(projectDir)).toEqual(observed);
    expect(await workflowStatus(projectDir, { run_id: 'only' })).toEqual(observed);
    expect(await workflowStatus(projectDir, {}, { snapshots: false })).toEqual(started);
    expect(await stateBytes(projectDir, 'only')).toBe(before);
  });

  it('with several running, refuses a call without run_id and lists them; two runs advance side by side', async () => {
    const projectDir = await tempProject();
    await start(projectDir, 'one', 'first problem');
    await start(projectDir, 'two', 'second problem');
    const message = await refusal(workflowStatus(projectDir), 'several_running');
    expect(message).toMatch(
      /2 workflows are running: one \(chain_of_thought, step decompose\), two .*pass run_id/,
    );
    await refusal(advanceWorkflow(projectDir, { output: 'x' }, depsOf()), 'several_running');

    await advanceWorkflow(projectDir, { run_id: 'one', output: 'a\nb' }, depsOf());
    expect(await workflowStatus(projectDir, { run_id: 'one' })).toMatchObject({ step: 'analyze_first' });
    const two = await workflowStatus(projectDir, { run_id: 'two' });
    expect(two).toMatchObject({ step: 'decompose' });
    expect(two.instructions).toContain('second problem');
  });

  it('refuses an unknown run and a run id that is not an id', async () => {
    const projectDir = await tempProject();
    await refusal(workflowStatus(projectDir, { run_id: 'ghost' }), 'unknown_run');
    await refusal(workflowStatus(projectDir, { run_id: 'a/b' }), 'invalid_request');
  });

  it('refuses a run whose pinned definition was edited (definition_mismatch)', async () => {
    const projectDir = await tempProject();
    await start(projectDir, 'pinned');
    const { appendFile } = await import('node:fs/promises');
    await appendFile(`${projectDir}/.agent/runs/pinned/workflow.yaml`, '# edited\n');
    await refusal(workflowStatus(projectDir, { run_id: 'pinned' }), 'definition_mismatch');
  });
});

describe('the observer seam', () => {
  it('is told when passes start and end, and its reconciliation shows in the status and step.completed', async () => {
    const projectDir = await tempProject();
    const calls: string[] = [];
    const describePass = (pass: ObservedPass): string =>
      `${pass.step}${pass.pass === undefined ? '' : `-${String(pass.pass)}`}`;
    const observer: WorkflowObserver = {
      stepStarted: (pass) => {
        calls.push(`started ${describePass(pass)}`);
        return Promise.resolve();
      },
      stepEnding: (pass) => {
        calls.push(`ending ${describePass(pass)}`);
        return Promise.resolve({ unregistered: ['src/new.ts'], phantom: [] });
      },
      observe: () => Promise.resolve({ unregistered: [], phantom: ['ghost.md'] }),
    };
    const deps = { ...depsOf(), observer };
    await startWorkflow(projectDir, { workflow: 'feature-dev', inputs: { feature: 'f' }, run_id: 'o' }, deps);
    expect(await workflowStatus(projectDir, {}, deps)).toMatchObject({
      reconciliation: { unregistered: [], phantom: ['ghost.md'] },
    });
    await advanceWorkflow(projectDir, { output: 'scope' }, deps);
    await advanceWorkflow(projectDir, { output: 'one' }, deps);
    expect(calls).toEqual([
      'started scope',
      'ending scope',
      'started plan',
      'ending plan',
      'started implement-1',
    ]);

    // implement has require_registration: unregistered files refuse the advance and change nothing.
    const before = await stateBytes(projectDir, 'o');
    expect(
      await refusal(advanceWorkflow(projectDir, { output: 'done' }, deps), 'registration_required'),
    ).toMatch(/step implement requires registration .*: src\/new\.ts; call register_artefacts/);
    expect(await stateBytes(projectDir, 'o')).toBe(before);
  });

  it('is told a pass starts before the state that starts it is written, so a kill never leaves it unobserved', async () => {
    const projectDir = await tempProject();
    const seen: string[] = [];
    const observer: WorkflowObserver = {
      stepStarted: async (pass) => {
        const state = await stateBytes(projectDir, pass.runId).catch(() => undefined);
        const revision =
          state === undefined ? 'none' : String((JSON.parse(state) as { revision: number }).revision);
        seen.push(`${pass.step} with state.json at revision ${revision}`);
      },
    };
    const deps = { ...depsOf(), observer };
    await startWorkflow(
      projectDir,
      { workflow: 'chain_of_thought', inputs: { problem: 'p' }, run_id: 'o' },
      deps,
    );
    await advanceWorkflow(projectDir, { output: 'a\nb' }, deps);
    expect(seen).toEqual([
      'decompose with state.json at revision none',
      'analyze_first with state.json at revision 0',
    ]);
  });

  it('a failing stepStarted costs the pass its reconciliation, never the call', async () => {
    const projectDir = await tempProject();
    const observer: WorkflowObserver = { stepStarted: () => Promise.reject(new Error('disk on fire')) };
    const deps = { ...depsOf(), observer };
    const started = await startWorkflow(
      projectDir,
      { workflow: 'chain_of_thought', inputs: { problem: 'p' }, run_id: 'o' },
      deps,
    );
    expect(started.step).toBe('decompose');
    expect(await advanceWorkflow(projectDir, { output: 'a\nb' }, deps)).toMatchObject({
      step: 'analyze_first',
    });
  });
});
