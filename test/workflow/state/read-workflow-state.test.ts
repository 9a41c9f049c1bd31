import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseRunId, UnknownRunError } from '../../../src/project/index.js';
import { readWorkflowState, WorkflowStateError } from '../../../src/workflow/index.js';
import { tempProject } from '../../helpers/temp-project.js';
import { DEFINITION } from './fixtures/state-fixtures.js';

/** A state.json exactly as an older version wrote it: no `artefacts` field. */
const OLD_STATE = `{
  "kind": "workflow",
  "version": 1,
  "run_id": "old-run",
  "workflow": "feature-dev",
  "definition_hash": "${DEFINITION.hash}",
  "definition_path": ".agent/runs/old-run/workflow.yaml",
  "inputs": { "feature": "login" },
  "status": "running",
  "step": "implement",
  "stepType": "loop",
  "step_index": 1,
  "step_started_at": "2025-01-18T10:00:00.000Z",
  "task": { "index": 2, "total": 3, "value": "write the form" },
  "tasks": { "implement": ["plan the page", "write the form", "test it"] },
  "outputs": { "scope": "a login page" },
  "started_at": "2025-01-18T09:00:00.000Z",
  "updated_at": "2025-01-18T10:00:00.000Z",
  "revision": 7
}
`;

const GRAPH_STATE = JSON.stringify({
  version: 1,
  run_id: 'graph-run',
  status: 'running',
  graph: { name: 'g', hash: 'h', source: 'g.yaml' },
  mode: 'prefer-file',
  inputs: {},
  ingest_enabled: false,
  created_at: '2025-01-18T09:00:00.000Z',
  updated_at: '2025-01-18T09:00:00.000Z',
  nodes: {},
});

async function readError(projectDir: string, runId: string): Promise<unknown> {
  return readWorkflowState(projectDir, parseRunId(runId)).catch((error: unknown) => error);
}

describe('readWorkflowState', () => {
  it('loads a state written without artefacts with artefacts []', async () => {
    const projectDir = await tempProject({ '.agent/runs/old-run/state.json': OLD_STATE });
    const state = await readWorkflowState(projectDir, parseRunId('old-run'));
    expect(state.artefacts).toEqual([]);
    expect(state).toMatchObject({
      step: 'implement',
      task: { index: 2 },
      revision: 7,
      outputs: { scope: 'a login page' },
    });
  });

  it.each([
    ['is not JSON', '{"kind": "workflow",', /^\.agent\/runs\/old-run\/state\.json is not valid JSON \(/],
    [
      'misses required fields',
      '{"kind": "workflow", "version": 1}',
      /^\.agent\/runs\/old-run\/state\.json is not a valid workflow state \(version 1\): run_id: /,
    ],
    ['has an unknown status', OLD_STATE.replace('"running"', '"paused"'), /status: Invalid option/],
    [
      'has an absolute artefact',
      OLD_STATE.replace('"revision": 7', '"revision": 7, "artefacts": ["/etc/passwd"]'),
      /artefacts\.0: must be a project-relative path/,
    ],
    [
      'has a duplicate artefact',
      OLD_STATE.replace('"revision": 7', '"revision": 7, "artefacts": ["a.md", "a.md"]'),
      /artefacts: has a duplicate path/,
    ],
    [
      'has a field this version does not know',
      OLD_STATE.replace('"revision": 7', '"revision": 7, "paused": true'),
      /Unrecognized key: "paused"/,
    ],
    [
      'has a task on an action step',
      OLD_STATE.replace('"stepType": "loop"', '"stepType": "action"'),
      /task: is only set on a loop step/,
    ],
    [
      "lies in another run's folder",
      OLD_STATE.replace('"run_id": "old-run"', '"run_id": "other-run"').replace(
        'runs/old-run/workflow',
        'runs/other-run/workflow',
      ),
      /names run other-run, not old-run; it was copied/,
    ],
  ])('names the file and the problem when state.json %s', async (_, text, message) => {
    const projectDir = await tempProject({ '.agent/runs/old-run/state.json': text });
    const error = await readError(projectDir, 'old-run');
    expect(error).toBeInstanceOf(WorkflowStateError);
    expect(error).toMatchObject({ code: 'state_unreadable' });
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).toContain('.agent/runs/old-run/state.json');
  });

  it("says a graph run's state.json is not a workflow", async () => {
    const projectDir = await tempProject({ '.agent/runs/graph-run/state.json': GRAPH_STATE });
    const error = await readError(projectDir, 'graph-run');
    expect(error).toMatchObject({ code: 'not_a_workflow_run' });
    expect((error as Error).message).toContain('belongs to a graph run');
  });

  it('says a run folder without state.json is not a workflow run', async () => {
    const projectDir = await tempProject({ '.agent/runs/ingest-run/events.jsonl': '{}\n' });
    expect(await readError(projectDir, 'ingest-run')).toMatchObject({ code: 'not_a_workflow_run' });
  });

  it('throws UnknownRunError for a run that does not exist', async () => {
    const projectDir = await tempProject();
    await mkdir(path.join(projectDir, '.agent/runs'), { recursive: true });
    expect(await readError(projectDir, 'nope')).toBeInstanceOf(UnknownRunError);
  });

  it('reports an unreadable state.json (a folder in its place) as state_unreadable', async () => {
    const projectDir = await tempProject();
    await mkdir(path.join(projectDir, '.agent/runs/odd/state.json'), { recursive: true });
    await writeFile(path.join(projectDir, '.agent/runs/odd/x'), '');
    const error = await readError(projectDir, 'odd');
    expect(error).toMatchObject({ code: 'state_unreadable' });
    expect((error as Error).message).toContain('cannot read .agent/runs/odd/state.json');
  });
});
