import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseRunId } from '../../../src/project/index.js';
import { readWorkflowRunHeader } from '../../../src/runtime/run/workflow-run-summary.js';
import { tempProject } from '../../helpers/temp-project.js';

const RUN = parseRunId('wf-1');

async function withState(state: unknown): Promise<string> {
  const projectDir = await tempProject();
  await mkdir(path.join(projectDir, '.agent', 'runs', RUN), { recursive: true });
  const text = typeof state === 'string' ? state : JSON.stringify(state);
  await writeFile(path.join(projectDir, '.agent', 'runs', RUN, 'state.json'), text);
  return projectDir;
}

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
});
