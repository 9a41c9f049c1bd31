import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseRunId } from '../../src/project/index.js';
import { readWorkflowRunHeader, stateKindOf } from '../../src/runs/index.js';
import { tempProject } from '../helpers/temp-project.js';

const RUN = parseRunId('wf-1');

async function withState(state: unknown, pinned?: string): Promise<string> {
  const projectDir = await tempProject();
  await mkdir(path.join(projectDir, '.agent', 'runs', RUN), { recursive: true });
  const text = typeof state === 'string' ? state : JSON.stringify(state);
  await writeFile(path.join(projectDir, '.agent', 'runs', RUN, 'state.json'), text);
  if (pinned !== undefined)
    await writeFile(path.join(projectDir, '.agent', 'runs', RUN, 'workflow.yaml'), pinned);
  return projectDir;
}

/** A pinned definition of five steps. */
const FIVE_STEPS = `name: five\nversion: '1'\nsteps:\n${['a', 'b', 'c', 'd', 'e']
  .map((id) => `  - id: ${id}\n    instructions: do ${id}\n`)
  .join('')}`;

const header = {
  kind: 'workflow',
  workflow: 'feature-dev',
  started_at: '2026-11-22T10:00:00.000Z',
  updated_at: '2026-11-22T10:05:00.000Z',
  step_index: 2,
};

describe('readWorkflowRunHeader', () => {
  it.each([
    ['running', 'running'],
    ['complete', 'completed'],
    ['failed', 'failed'],
    ['aborted', 'aborted'],
  ])('reads a %s workflow as %s, with its steps done and times', async (status, shown) => {
    const projectDir = await withState({ ...header, status, other: 'fields the engine owns' });
    expect(await readWorkflowRunHeader(projectDir, RUN)).toEqual({
      workflow: 'feature-dev',
      status: shown,
      stepsDone: 2,
      stepsTotal: 0,
      created_at: header.started_at,
      updated_at: header.updated_at,
    });
  });

  it.each([
    ['a graph run state', { version: 1, run_id: 'wf-1', status: 'running' }],
    ['a workflow state without its status', { ...header }],
    ['text that is not JSON', '{'],
  ])('returns null for %s', async (_name, state) => {
    const projectDir = await withState(state);
    expect(await readWorkflowRunHeader(projectDir, RUN)).toBeNull();
  });

  it('returns null for a run without state.json', async () => {
    expect(await readWorkflowRunHeader(await tempProject(), RUN)).toBeNull();
  });

  it('counts every step of a complete workflow as done, out of the steps of its pinned definition', async () => {
    // The engine leaves step_index on the last step (4 of 0..4) when the workflow completes.
    const projectDir = await withState({ ...header, status: 'complete', step_index: 4 }, FIVE_STEPS);
    expect(await readWorkflowRunHeader(projectDir, RUN)).toMatchObject({ stepsDone: 5, stepsTotal: 5 });
  });

  it("counts the steps before a running workflow's current one, out of its pinned steps", async () => {
    const projectDir = await withState({ ...header, status: 'running', step_index: 2 }, FIVE_STEPS);
    expect(await readWorkflowRunHeader(projectDir, RUN)).toMatchObject({ stepsDone: 2, stepsTotal: 5 });
  });

  it.each([
    ['not YAML', ': : ['],
    ['without steps', 'name: x\n'],
  ])('gives 0 steps in all when the pinned definition is %s', async (_name, pinned) => {
    const projectDir = await withState({ ...header, status: 'complete', step_index: 4 }, pinned);
    expect(await readWorkflowRunHeader(projectDir, RUN)).toMatchObject({ stepsDone: 4, stepsTotal: 0 });
  });
});

describe('stateKindOf', () => {
  it.each([
    ['a workflow state', JSON.stringify({ kind: 'workflow', status: 'running' }), 'workflow'],
    ['a graph state', JSON.stringify({ version: 1, graph: { name: 'g' } }), 'graph'],
    ['a torn workflow state', '{"kind": "workflow", "status": "runn', 'workflow'],
    ['torn text of no kind', '{"version": 1, "gra', 'graph'],
    ['JSON that is not an object', '[1, 2]', 'graph'],
  ])('tells %s', (_name, text, kind) => {
    expect(stateKindOf(text)).toBe(kind);
  });
});

describe('the header and the engine read one schema', () => {
  it('does not list a workflow state whose header field the engine refuses (a time that is not ISO 8601)', async () => {
    const projectDir = await withState({ ...header, status: 'running', updated_at: 'yesterday' });
    expect(await readWorkflowRunHeader(projectDir, RUN)).toBeNull();
  });
});
