import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { readArtifactRecords } from '../../src/artifacts/index.js';
import { parseRunId } from '../../src/project/index.js';
import { readEvents, tempProject } from '../helpers/temp-project.js';
import {
  DEVELOPMENT_RESULT,
  MALFORMED_RESULT,
  buildWorkflowYaml,
  contractProject,
} from '../workflow/engine/fixtures/contract-fixtures.js';
import { connectServer, structuredOf, textOf } from './mcp-test-client.js';

const RESULT_PATH = '.agent/artifacts/b-1/development_result.json';

/** The `{ code, errors }` JSON a refusal carries as its second text item. */
function refusalOf(result: CallToolResult): { code: string; errors: { path: string }[] } {
  expect(result.isError).toBe(true);
  expect(result.structuredContent).toBeUndefined();
  const second = result.content[1];
  if (second?.type !== 'text') throw new Error('expected the refusal JSON as a second text item');
  return JSON.parse(second.text) as { code: string; errors: { path: string }[] };
}

/** A graph run's state.json whose nodes have the given statuses. */
async function graphRun(projectDir: string, runId: string, nodes: Record<string, string>): Promise<void> {
  const at = '2026-01-01T10:00:00.000Z';
  const state = {
    version: 1,
    run_id: runId,
    status: 'running',
    graph: { name: 'g', hash: 'a'.repeat(64), source: 'builtin:g' },
    mode: 'single',
    inputs: {},
    ingest_enabled: false,
    created_at: at,
    updated_at: at,
    nodes: Object.fromEntries(
      Object.entries(nodes).map(([id, status]) => [id, { status, attempts: 1, agent: 'writer' }]),
    ),
  };
  await mkdir(path.join(projectDir, '.agent/runs', runId), { recursive: true });
  await writeFile(path.join(projectDir, '.agent/runs', runId, 'state.json'), JSON.stringify(state));
}

describe('submit_artifact', () => {
  it('submits through the canonical path for the one running workflow: file, event, record', async () => {
    const projectDir = await contractProject();
    const { call } = await connectServer(projectDir);
    structuredOf(await call('workflow_start', { workflow: 'build', run_id: 'b-1' }));
    const submitted = structuredOf(
      await call('submit_artifact', { type: 'development_result', payload: DEVELOPMENT_RESULT }),
    );
    expect(submitted).toEqual({
      run_id: 'b-1',
      type: 'development_result',
      path: RESULT_PATH,
      content_hash: expect.stringMatching(/^sha256:[0-9a-f]{64}$/) as string,
      bytes: expect.any(Number) as number,
      task: 'develop',
    });
    expect(JSON.parse(await readFile(path.join(projectDir, RESULT_PATH), 'utf8'))).toEqual(
      DEVELOPMENT_RESULT,
    );
    const events = await readEvents(projectDir, 'b-1');
    expect(events.find((event) => event.event === 'artifact.submitted')).toMatchObject({
      type: 'development_result',
      hash: submitted.content_hash,
      task: 'develop',
      agent: 'workflow',
    });
    const { records } = await readArtifactRecords(projectDir, parseRunId('b-1'));
    const record = records.find((entry) => entry.path === RESULT_PATH);
    expect(record?.metadata).toMatchObject({ source: 'submit', contract: 'development_result' });

    // A resubmission is linked to the previous one.
    const again = structuredOf(
      await call('submit_artifact', {
        type: 'development_result',
        payload: { ...DEVELOPMENT_RESULT, summary: 'Added the parser and its tests.' },
        run_id: 'b-1',
      }),
    );
    expect(again.previous).toBe(record?.artifactId);
  });

  it('refuses a malformed payload with every field path (isError), and writes nothing', async () => {
    const projectDir = await contractProject();
    const { call } = await connectServer(projectDir);
    structuredOf(await call('workflow_start', { workflow: 'build', run_id: 'b-1' }));
    const result = await call('submit_artifact', { type: 'development_result', payload: MALFORMED_RESULT });
    expect(textOf(result)).toContain('The development_result artifact was refused: 3 fields to fix.');
    expect(textOf(result)).toContain(
      '- changed_files[0].change: expected one of "added", "modified", "deleted", got "changed"',
    );
    const refusal = refusalOf(result);
    expect(refusal.code).toBe('invalid_artifact');
    expect(refusal.errors.map((error) => error.path)).toEqual([
      'outcome',
      'changed_files[0].change',
      'reviewer_focus',
    ]);
    await expect(readFile(path.join(projectDir, RESULT_PATH))).rejects.toThrow();
  });

  it.each([
    ['an unknown type', { type: 'report', payload: {} }, '(root)'],
    ['a missing payload', { type: 'issues' }, '(root)'],
    ['a payload that is not an object', { type: 'issues', payload: [1, 2] }, '(root)'],
  ])('refuses %s with the canonical field errors, not the SDK validation text', async (_, args, where) => {
    const projectDir = await contractProject();
    const { call } = await connectServer(projectDir);
    structuredOf(await call('workflow_start', { workflow: 'build', run_id: 'b-1' }));
    const refusal = refusalOf(await call('submit_artifact', args));
    expect(refusal).toMatchObject({ code: 'invalid_artifact' });
    expect(refusal.errors[0]?.path).toBe(where);
  });

  it('needs run_id when no workflow or several are running', async () => {
    const projectDir = await tempProject({
      'workflows/build.yaml': buildWorkflowYaml(),
    });
    const { call } = await connectServer(projectDir);
    const none = await call('submit_artifact', { type: 'issues', payload: { issues: [] } });
    expect(none.isError).toBe(true);
    expect(textOf(none)).toBe('Workflow not started. Call workflow_start first.');
    structuredOf(await call('workflow_start', { workflow: 'build', run_id: 'b-1' }));
    structuredOf(await call('workflow_start', { workflow: 'build', run_id: 'b-2' }));
    const two = await call('submit_artifact', { type: 'issues', payload: { issues: [] } });
    expect(two.isError).toBe(true);
    expect(textOf(two)).toMatch(/2 workflows are running: b-1 .*b-2 .*pass run_id/);
    const named = structuredOf(
      await call('submit_artifact', { type: 'issues', payload: { issues: [] }, run_id: 'b-2' }),
    );
    expect(named).toMatchObject({ run_id: 'b-2', task: 'develop' });
  });

  it('submits for the one running node of a graph run, and names the running nodes when there are several', async () => {
    const projectDir = await tempProject();
    await graphRun(projectDir, 'g-1', { plan: 'completed', write: 'running' });
    await graphRun(projectDir, 'g-2', { a: 'running', b: 'running', c: 'pending' });
    const { call } = await connectServer(projectDir);
    const one = structuredOf(
      await call('submit_artifact', { type: 'issues', payload: { issues: [] }, run_id: 'g-1' }),
    );
    expect(one).toMatchObject({ run_id: 'g-1', task: 'write', path: '.agent/artifacts/g-1/issues.json' });
    const several = await call('submit_artifact', { type: 'issues', payload: { issues: [] }, run_id: 'g-2' });
    expect(textOf(several)).toBe(
      'run g-2 is a graph run and 2 of its nodes are running: a, b; submit with the CLI, which names the node: artifact-ingest submit TYPE FILE --run-id g-2 --node-id NODE_ID',
    );
    expect(refusalOf(several).code).toBe('node_required');
  });

  it("submits for a graph run with no running node as the caller's own (task mcp), as the CLI's is cli", async () => {
    const projectDir = await tempProject();
    await graphRun(projectDir, 'g-3', { plan: 'completed', write: 'completed' });
    const { call } = await connectServer(projectDir);
    const result = structuredOf(
      await call('submit_artifact', { type: 'issues', payload: { issues: [] }, run_id: 'g-3' }),
    );
    expect(result).toMatchObject({ run_id: 'g-3', task: 'mcp', path: '.agent/artifacts/g-3/issues.json' });
  });

  it('drives a contract step: fix_needed, a refused submission, a valid one, then terminal done', async () => {
    const projectDir = await contractProject();
    const { call } = await connectServer(projectDir);
    structuredOf(await call('workflow_start', { workflow: 'build', run_id: 'b-1' }));

    // Not an error: the agent must act on it.
    const fix = await call('workflow_advance', { output: 'I wrote the parser.' });
    expect(fix.isError).toBeUndefined();
    const fixStatus = structuredOf(fix);
    expect(fixStatus).toMatchObject({
      status: 'running',
      step: 'develop',
      contract: { type: 'development_result', state: 'fix_needed', fix_attempt: 1, max_fix_attempts: 2 },
    });
    expect(String(fixStatus.instructions)).toContain('Fix request 1 of 2');

    expect(
      (await call('submit_artifact', { type: 'development_result', payload: MALFORMED_RESULT })).isError,
    ).toBe(true);
    structuredOf(await call('submit_artifact', { type: 'development_result', payload: DEVELOPMENT_RESULT }));
    expect(structuredOf(await call('workflow_advance', { output: 'Submitted.' }))).toMatchObject({
      step: 'review',
    });
    const done = structuredOf(await call('workflow_advance', { output: 'Looks right.' }));
    expect(done).toMatchObject({
      status: 'complete',
      terminal: { state: 'done', artifact: RESULT_PATH },
    });
    const status = structuredOf(await call('workflow_status', { run_id: 'b-1' }));
    expect(status).toMatchObject({ status: 'complete', terminal: done.terminal });
    // Once the run ended, a submission to it is refused.
    const late = await call('submit_artifact', {
      type: 'development_result',
      payload: DEVELOPMENT_RESULT,
      run_id: 'b-1',
    });
    expect(textOf(late)).toMatch(/b-1 is complete, so submit_artifact cannot change it/);
  });

  it('reports a never-fixed contract as a failed status with terminal budget_exceeded, not as an error', async () => {
    const projectDir = await contractProject({ budgets: '  max_fix_attempts: 0' });
    const { call } = await connectServer(projectDir);
    structuredOf(await call('workflow_start', { workflow: 'build', run_id: 'b-1' }));
    const failed = structuredOf(await call('workflow_advance', { output: 'nothing' }));
    expect(failed).toMatchObject({
      status: 'failed',
      terminal: { state: 'budget_exceeded', artifact: null },
      next_action: { tool: 'workflow_start' },
    });
  });

  it('ends the run with terminal budget_exceeded once max_agent_calls advances were made', async () => {
    const projectDir = await contractProject({ budgets: '  max_agent_calls: 1' });
    const { call } = await connectServer(projectDir);
    structuredOf(await call('workflow_start', { workflow: 'build', run_id: 'b-1' }));
    const failed = structuredOf(await call('workflow_advance', { output: 'nothing' }));
    expect(failed).toMatchObject({ status: 'failed', terminal: { state: 'budget_exceeded' } });
    expect(String(failed.reason)).toMatch(/^max_agent_calls: 1 of 1/);
  });
});
