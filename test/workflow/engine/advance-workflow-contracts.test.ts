import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readArtifactRecords } from '../../../src/artifacts/index.js';
import { readTerminal, submitArtifact } from '../../../src/contracts/index.js';
import { parseRunId } from '../../../src/project/index.js';
import {
  abortWorkflow,
  advanceWorkflow,
  startWorkflow,
  workflowStatus,
} from '../../../src/workflow/index.js';
import type { WorkflowCompletion, WorkflowStatusResponse } from '../../../src/workflow/index.js';
import { readEvents, tempProject } from '../../helpers/temp-project.js';
import {
  BLOCKER_ISSUES,
  DEVELOPMENT_RESULT,
  MALFORMED_RESULT,
  answerWithArtifact,
  contractProject,
} from './fixtures/contract-fixtures.js';
import { depsOf, refusal, stateBytes } from './fixtures/engine-fixtures.js';

const RESULT_PATH = '.agent/artifacts/b-1/development_result.json';

function asStatus(result: WorkflowStatusResponse | WorkflowCompletion): WorkflowStatusResponse {
  expect(result).toHaveProperty('step');
  return result as WorkflowStatusResponse;
}

async function startBuild(projectDir: string, deps = depsOf()): Promise<WorkflowStatusResponse> {
  return startWorkflow(projectDir, { workflow: 'build', run_id: 'b-1' }, deps);
}

async function eventNames(projectDir: string): Promise<string[]> {
  return (await readEvents(projectDir, 'b-1')).map((event) => String(event.event));
}

describe('advanceWorkflow on a step with contract:', () => {
  it('tells the agent of the contract, and re-asks the same pass with a fix request when nothing was submitted', async () => {
    const projectDir = await contractProject();
    const started = await startBuild(projectDir);
    expect(started.contract).toEqual({
      type: 'development_result',
      state: 'pending',
      fix_attempt: 0,
      max_fix_attempts: 2,
      errors: [],
    });
    expect(started.instructions).toMatch(/submit_artifact/);
    expect(started.instructions).toMatch(/```json artifact=development_result/);

    const status = asStatus(await advanceWorkflow(projectDir, { output: 'I wrote it.' }, depsOf()));
    expect(status).toMatchObject({
      status: 'running',
      step: 'develop',
      contract: {
        type: 'development_result',
        state: 'fix_needed',
        fix_attempt: 1,
        max_fix_attempts: 2,
        reason: 'no development_result artifact was submitted',
        errors: [],
      },
    });
    expect(status.instructions.startsWith(started.instructions)).toBe(true);
    expect(status.instructions).toContain('Fix request 1 of 2');
    const state = JSON.parse(await stateBytes(projectDir, 'b-1')) as Record<string, unknown>;
    expect(state).toMatchObject({ revision: 1, agent_calls: 1, step: 'develop', outputs: {} });
    const events = await readEvents(projectDir, 'b-1');
    const fixNeeded = events.find((event) => event.event === 'step.fix_needed');
    expect(fixNeeded).toMatchObject({
      step: 'develop',
      max_fix_attempts: 2,
      contract: { type: 'development_result', state: 'fix_needed', fix_attempt: 1 },
    });
    expect(events.some((event) => event.event === 'step.completed')).toBe(false);
    // workflow_status after a restart shows the same fix request: it is in state.json.
    expect((await workflowStatus(projectDir, { run_id: 'b-1' }, { snapshots: false })).instructions).toBe(
      status.instructions,
    );
  });

  it('gives every field path of a malformed artifact= block, then advances on a valid one', async () => {
    const projectDir = await contractProject();
    await startBuild(projectDir);
    const fix = asStatus(
      await advanceWorkflow(
        projectDir,
        { output: answerWithArtifact('Done.', 'development_result', MALFORMED_RESULT) },
        depsOf(),
      ),
    );
    expect(fix.contract?.errors.map((error) => error.path)).toEqual([
      'outcome',
      'changed_files[0].change',
      'reviewer_focus',
    ]);
    expect(fix.instructions).toContain(
      'changed_files[0].change: expected one of "added", "modified", "deleted", got "changed"',
    );
    // A refused block writes nothing under .agent/artifacts/.
    await expect(readFile(path.join(projectDir, RESULT_PATH))).rejects.toThrow();

    const next = asStatus(
      await advanceWorkflow(
        projectDir,
        { output: answerWithArtifact('Fixed.', 'development_result', DEVELOPMENT_RESULT) },
        depsOf(),
      ),
    );
    expect(next).toMatchObject({ step: 'review', status: 'running' });
    expect(next).not.toHaveProperty('contract');
    expect(JSON.parse(await readFile(path.join(projectDir, RESULT_PATH), 'utf8'))).toEqual(
      DEVELOPMENT_RESULT,
    );
    const { records } = await readArtifactRecords(projectDir, parseRunId('b-1'));
    expect(
      records
        .filter((record) => record.metadata.source === 'submit')
        .map((record) => [record.path, record.taskId, record.agentId, record.metadata.contract]),
    ).toEqual([[RESULT_PATH, 'develop', 'workflow', 'development_result']]);
    const events = await readEvents(projectDir, 'b-1');
    expect(events.find((event) => event.event === 'artifact.submitted')).toMatchObject({
      type: 'development_result',
      path: RESULT_PATH,
      task: 'develop',
    });
    expect(events.find((event) => event.event === 'step.completed')).toMatchObject({
      step: 'develop',
      contract: { type: 'development_result', state: 'done', fix_attempt: 1, artifact: RESULT_PATH },
    });
    // The artifact= block is the canonical submission; the saved output is the whole answer.
    expect(JSON.parse(await stateBytes(projectDir, 'b-1'))).toMatchObject({ agent_calls: 2 });
  });

  it('counts a submission made through the canonical path during the pass (as submit_artifact does)', async () => {
    const projectDir = await contractProject();
    await startBuild(projectDir);
    const submitted = await submitArtifact({
      projectDir,
      runId: 'b-1',
      taskId: 'develop',
      agentId: 'claude',
      type: 'development_result',
      payload: DEVELOPMENT_RESULT,
      durability: 'none',
    });
    expect(submitted.ok).toBe(true);
    const next = asStatus(await advanceWorkflow(projectDir, { output: 'Submitted it.' }, depsOf()));
    expect(next.step).toBe('review');
  });

  it('does not count a submission of another node of the run', async () => {
    const projectDir = await contractProject();
    await startBuild(projectDir);
    await submitArtifact({
      projectDir,
      runId: 'b-1',
      taskId: 'elsewhere',
      agentId: 'cli',
      type: 'development_result',
      payload: DEVELOPMENT_RESULT,
      durability: 'none',
    });
    const status = asStatus(await advanceWorkflow(projectDir, { output: 'x' }, depsOf()));
    expect(status.contract?.state).toBe('fix_needed');
  });

  it('asks for a fix when the reducer does not advance (outcome partial)', async () => {
    const projectDir = await contractProject();
    await startBuild(projectDir);
    const status = asStatus(
      await advanceWorkflow(
        projectDir,
        {
          output: answerWithArtifact('Half.', 'development_result', {
            ...DEVELOPMENT_RESULT,
            outcome: 'partial',
          }),
        },
        depsOf(),
      ),
    );
    expect(status.contract).toMatchObject({ state: 'fix_needed', fix_attempt: 1, errors: [] });
    expect(status.contract?.reason).toMatch(/partial/);
  });

  it('fails the workflow with terminal budget_exceeded once max_fix_attempts fix requests went unanswered', async () => {
    const projectDir = await contractProject({ budgets: '  max_fix_attempts: 1' });
    await startBuild(projectDir);
    const first = asStatus(await advanceWorkflow(projectDir, { output: 'nothing' }, depsOf()));
    expect(first.contract).toMatchObject({ state: 'fix_needed', fix_attempt: 1, max_fix_attempts: 1 });
    const last = asStatus(await advanceWorkflow(projectDir, { output: 'still nothing' }, depsOf()));
    expect(last).toMatchObject({
      status: 'failed',
      step: 'develop',
      contract: { state: 'fix_needed', fix_attempt: 1 },
      terminal: { state: 'budget_exceeded', artifact: null },
    });
    expect(last.terminal?.reason).toMatch(/max_fix_attempts: 1/);
    expect(last.reason).toBe(last.terminal?.reason);
    expect(await readTerminal(projectDir, parseRunId('b-1'))).toEqual(last.terminal);
    const events = await eventNames(projectDir);
    expect(events.slice(-3)).toEqual(['step.failed', 'workflow.failed', 'run.terminal']);
    expect(events.filter((name) => name === 'run.terminal')).toHaveLength(1);
    await refusal(advanceWorkflow(projectDir, { run_id: 'b-1', output: 'late' }, depsOf()), 'not_running');
  });

  it('blocks on a blocker issues artifact submitted during the pass: failed, terminal blocked with that artifact', async () => {
    const projectDir = await contractProject();
    await startBuild(projectDir);
    const output = answerWithArtifact('Cannot.', 'issues', BLOCKER_ISSUES);
    const status = asStatus(await advanceWorkflow(projectDir, { output }, depsOf()));
    expect(status).toMatchObject({
      status: 'failed',
      contract: { state: 'blocked', artifact: '.agent/artifacts/b-1/issues.json' },
      terminal: { state: 'blocked', artifact: '.agent/artifacts/b-1/issues.json' },
    });
    expect(status.terminal?.reason).toMatch(/blocker/);
    const terminalJson = JSON.parse(
      await readFile(path.join(projectDir, '.agent/runs/b-1/terminal.json'), 'utf8'),
    ) as unknown;
    expect(terminalJson).toEqual(status.terminal);
  });

  it('completes with terminal done pointing at the development_result, and workflow_status shows it', async () => {
    const projectDir = await contractProject();
    await startBuild(projectDir);
    await advanceWorkflow(
      projectDir,
      { output: answerWithArtifact('Done.', 'development_result', DEVELOPMENT_RESULT) },
      depsOf(),
    );
    const completion = (await advanceWorkflow(
      projectDir,
      { output: 'Fine.' },
      depsOf(),
    )) as WorkflowCompletion;
    expect(completion).toMatchObject({
      status: 'complete',
      terminal: { state: 'done', artifact: RESULT_PATH, reason: 'every contract satisfied' },
    });
    const status = await workflowStatus(projectDir, { run_id: 'b-1' }, { snapshots: false });
    expect(status).toMatchObject({ status: 'complete', terminal: completion.terminal });
    expect(await readTerminal(projectDir, parseRunId('b-1'))).toEqual(completion.terminal);
    expect((await eventNames(projectDir)).slice(-2)).toEqual(['workflow.completed', 'run.terminal']);
  });

  it('judges each pass of a loop step on its own submissions', async () => {
    const projectDir = await tempProject({
      'workflows/each.yaml': [
        'name: each',
        'version: "1"',
        'inputs: [parts]',
        'steps:',
        '  - id: part',
        '    type: loop',
        '    over: parts',
        '    contract: development_result',
        '    instructions: "Build {task}."',
        '',
      ].join('\n'),
    });
    await startWorkflow(
      projectDir,
      { workflow: 'each', inputs: { parts: ['a', 'b'] }, run_id: 'e-1' },
      depsOf(),
    );
    const second = asStatus(
      await advanceWorkflow(
        projectDir,
        { output: answerWithArtifact('a', 'development_result', DEVELOPMENT_RESULT) },
        depsOf(),
      ),
    );
    expect(second).toMatchObject({ step: 'part', subStepIndex: 2, contract: { state: 'pending' } });
    // The first pass's artifact was submitted as part-1: it does not satisfy part-2.
    const fix = asStatus(await advanceWorkflow(projectDir, { output: 'b' }, depsOf()));
    expect(fix).toMatchObject({ subStepIndex: 2, contract: { state: 'fix_needed' } });
  });

  it('ends the workflow with terminal budget_exceeded when max_agent_calls calls were made and work remains', async () => {
    const projectDir = await contractProject({ budgets: '  max_agent_calls: 2' });
    await startBuild(projectDir);
    asStatus(await advanceWorkflow(projectDir, { output: 'nothing yet' }, depsOf()));
    const status = asStatus(
      await advanceWorkflow(
        projectDir,
        { output: answerWithArtifact('Done.', 'development_result', DEVELOPMENT_RESULT) },
        depsOf(),
      ),
    );
    // The develop pass is done, but the review pass would be a third call.
    expect(status).toMatchObject({
      status: 'failed',
      step: 'develop',
      terminal: { state: 'budget_exceeded', artifact: RESULT_PATH },
    });
    expect(status.terminal?.reason).toMatch(/max_agent_calls: 2 of 2/);
    expect((await eventNames(projectDir)).slice(-3)).toEqual([
      'step.completed',
      'workflow.failed',
      'run.terminal',
    ]);
  });

  it('ends the workflow with terminal budget_exceeded once max_minutes have passed', async () => {
    const projectDir = await contractProject({ budgets: '  max_minutes: 10' });
    let clock = Date.parse('2026-01-01T10:00:00.000Z');
    const deps = depsOf({ now: () => new Date(clock) });
    await startBuild(projectDir, deps);
    clock += 11 * 60_000;
    const status = asStatus(await advanceWorkflow(projectDir, { output: 'slow' }, deps));
    expect(status).toMatchObject({ status: 'failed', terminal: { state: 'budget_exceeded' } });
    expect(status.terminal?.reason).toMatch(/more than 10/);
  });

  it('declares no terminal state on an abort: that is a person stopping the work', async () => {
    const projectDir = await contractProject();
    await startBuild(projectDir);
    const aborted = await abortWorkflow(projectDir, { reason: 'wrong plan' }, depsOf());
    expect(aborted).not.toHaveProperty('terminal');
    expect(await readTerminal(projectDir, parseRunId('b-1'))).toBeUndefined();
  });

  it('continues a run whose state.json was written before contracts (no agent_calls, contract or terminal)', async () => {
    const projectDir = await contractProject();
    await startBuild(projectDir);
    const file = path.join(projectDir, '.agent/runs/b-1/state.json');
    const older = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
    delete older.agent_calls;
    await writeFile(file, JSON.stringify(older));
    const status = asStatus(await advanceWorkflow(projectDir, { output: 'x' }, depsOf()));
    expect(status.contract?.state).toBe('fix_needed');
    expect(JSON.parse(await stateBytes(projectDir, 'b-1'))).toMatchObject({ agent_calls: 1 });
  });
});
