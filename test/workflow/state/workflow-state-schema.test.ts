import { describe, expect, it } from 'vitest';
import { parseRunId } from '../../../src/project/index.js';
import {
  workflowDefinitionPath,
  workflowStateLockPath,
  workflowStateSchema,
} from '../../../src/workflow/index.js';
import { projectRelativePathSchema } from '../../../src/workflow/state/index.js';
import { DEFINITION } from './fixtures/state-fixtures.js';

const valid = {
  kind: 'workflow',
  version: 1,
  run_id: 'wf-1',
  workflow: 'feature-dev',
  definition_hash: DEFINITION.hash,
  definition_path: '.agent/runs/wf-1/workflow.yaml',
  inputs: { feature: 'login', tasks: ['a', { title: 'b' }] },
  status: 'running',
  step: 'polish',
  stepType: 'ralph',
  step_index: 2,
  step_started_at: '2026-01-01T00:00:00.000Z',
  ralphIteration: 2,
  tasks: {},
  outputs: {},
  artefacts: ['docs/wf-1/scope.md'],
  step_artefacts: ['docs/wf-1/scope.md'],
  started_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
  revision: 3,
};

describe('workflowStateSchema', () => {
  it('accepts a valid state and defaults missing artefacts and step_artefacts lists to []', () => {
    expect(workflowStateSchema.parse(valid)).toEqual({ ...valid, agent_calls: 0 });
    const withoutArtefacts = Object.fromEntries(
      Object.entries(valid).filter(([key]) => key !== 'artefacts' && key !== 'step_artefacts'),
    );
    const parsed = workflowStateSchema.parse(withoutArtefacts);
    expect(parsed.artefacts).toEqual([]);
    expect(parsed.step_artefacts).toEqual([]);
  });

  it('loads a state written before contracts: no contract, no terminal, agent_calls 0', () => {
    const parsed = workflowStateSchema.parse(valid);
    expect(parsed.agent_calls).toBe(0);
    expect(parsed).not.toHaveProperty('contract');
    expect(parsed).not.toHaveProperty('terminal');
  });

  it.each([
    ['a graph state kind', { kind: 'graph' }, 'kind'],
    ['a pinned copy elsewhere', { definition_path: 'workflows/feature-dev.yaml' }, 'definition_path'],
    ['a ralph iteration on an action step', { stepType: 'action' }, 'ralphIteration'],
    [
      'a task past the end of its list',
      { stepType: 'loop', ralphIteration: undefined, task: { index: 3, total: 2, value: 'x' } },
      'task',
    ],
    ['a failed run without a finish time', { status: 'failed' }, 'finished_at'],
    ['a negative revision', { revision: -1 }, 'revision'],
    ['an invalid step id', { step: 'has space' }, 'step'],
    ['a short hash', { definition_hash: 'abc' }, 'definition_hash'],
    ['a path claimed twice in a pass', { step_artefacts: ['a.md', 'a.md'] }, 'step_artefacts'],
    ['an escaping claimed path', { step_artefacts: ['../a.md'] }, 'step_artefacts'],
    ['a negative agent_calls', { agent_calls: -1 }, 'agent_calls'],
    [
      'a contract of an unknown type',
      { contract: { type: 'report', state: 'done', fix_attempt: 0, errors: [] } },
      'contract',
    ],
    [
      'a terminal state on a running workflow',
      { terminal: { state: 'done', artifact: null, reason: 'x', at: '2026-01-01T00:00:00.000Z' } },
      'terminal',
    ],
  ])('refuses %s', (_, change, field) => {
    const candidate = Object.fromEntries(
      Object.entries({ ...valid, ...change }).filter(([, value]) => value !== undefined),
    );
    const result = workflowStateSchema.safeParse(candidate);
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => issue.path[0])).toContain(field);
  });
});

describe('projectRelativePathSchema', () => {
  it.each([
    ['src/app.ts', true],
    ['docs/wf-1/scope.md', true],
    ['.github/workflows/ci.yml', true],
    ['/etc/passwd', false],
    ['../outside.md', false],
    ['src/../../x', false],
    ['./src/app.ts', false],
    ['src//app.ts', false],
    ['src\\app.ts', false],
    ['C:/x', false],
    ['', false],
  ])('%j is project-relative: %s', (value, ok) => {
    expect(projectRelativePathSchema.safeParse(value).success).toBe(ok);
  });
});

describe('workflow run paths', () => {
  it('keeps the pinned definition and the state lock in the run folder', () => {
    const runId = parseRunId('wf-1');
    expect(workflowDefinitionPath(runId)).toBe('.agent/runs/wf-1/workflow.yaml');
    expect(workflowStateLockPath(runId)).toBe('.agent/runs/wf-1/state.lock');
  });
});
