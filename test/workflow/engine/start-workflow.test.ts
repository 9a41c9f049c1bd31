import { readdir, readFile, rm, symlink } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  advanceWorkflow,
  ARTEFACTS_INSTRUCTION,
  startWorkflow,
  workflowStatus,
} from '../../../src/workflow/index.js';
import {
  OUTSIDE_MARKERS,
  outsideReferences,
  outsideRefusal,
  outsideWorkflowFixture,
  workflowYaml,
} from '../../helpers/outside-workflow-fixture.js';
import { readEvents, tempProject } from '../../helpers/temp-project.js';
import { depsOf, refusal } from './fixtures/engine-fixtures.js';

describe('startWorkflow', () => {
  it('pins the definition, writes the first state and returns the status of the first step', async () => {
    const projectDir = await tempProject();
    const status = await startWorkflow(
      projectDir,
      { workflow: 'feature-dev', inputs: { feature: 'login page' }, run_id: 'fd-1' },
      depsOf(),
    );
    expect(status).toEqual({
      run_id: 'fd-1',
      workflow: 'feature-dev',
      status: 'running',
      step: 'scope',
      stepType: 'action',
      step_number: 1,
      total_steps: 5,
      agent: null,
      delegate: false,
      instructions: `Scope out login page and save the scope to a markdown file.\n\n${ARTEFACTS_INSTRUCTION}`,
      next_action: { tool: 'workflow_advance', expecting: 'scope' },
      progress: { completed: 0, total: 5 },
      artefacts: [],
    });
    const state = JSON.parse(
      await readFile(path.join(projectDir, '.agent/runs/fd-1/state.json'), 'utf8'),
    ) as Record<string, unknown>;
    expect(state).toMatchObject({ kind: 'workflow', status: 'running', step: 'scope', revision: 0 });
    expect(await readFile(path.join(projectDir, '.agent/runs/fd-1/workflow.yaml'), 'utf8')).toContain(
      'name: feature-dev',
    );
    const events = await readEvents(projectDir, 'fd-1');
    expect(events.map((event) => event.event)).toEqual(['workflow.started', 'step.started']);
    expect(events[0]).toMatchObject({ run_id: 'fd-1', workflow: 'feature-dev', inputs: ['feature'] });
    expect(events[1]).toMatchObject({ run_id: 'fd-1', step: 'scope', step_type: 'action', step_number: 1 });
  });

  it('makes a run id from the workflow name and the time when none is given', async () => {
    const projectDir = await tempProject();
    const status = await startWorkflow(
      projectDir,
      { workflow: 'chain_of_thought', inputs: { problem: 'p' } },
      depsOf({ now: () => new Date('2026-01-02T03:04:05.678Z') }),
    );
    expect(status.run_id).toMatch(/^chain_of_thought-20260102T030405Z-[0-9a-f]{4}$/);
    expect((await workflowStatus(projectDir, {})).run_id).toBe(status.run_id);
  });

  it('loads a project workflow by name and by path, and starts a loop over an input list', async () => {
    const yaml = [
      'name: lists',
      'version: "1"',
      'inputs: [items]',
      'steps:',
      '  - id: each',
      '    type: loop',
      '    over: items',
      '    instructions: "Do {task} ({task.index}/{task.total})"',
      '',
    ].join('\n');
    const projectDir = await tempProject({ 'workflows/lists.yaml': yaml, 'workflows/more/lists.yaml': yaml });
    const byName = await startWorkflow(
      projectDir,
      { workflow: 'lists', inputs: { items: ['a', 'b'] }, run_id: 'by-name' },
      depsOf(),
    );
    expect(byName).toMatchObject({ instructions: 'Do a (1/2)', task: { index: 1, total: 2, value: 'a' } });
    expect(byName).toMatchObject({ subStepIndex: 1, totalSubSteps: 2 });
    const byPath = await startWorkflow(
      projectDir,
      { workflow: 'workflows/more/lists.yaml', inputs: { items: '- x\n- y\n- z' }, run_id: 'by-path' },
      depsOf(),
    );
    expect(byPath).toMatchObject({ instructions: 'Do x (1/3)', totalSubSteps: 3 });
  });

  it.each([
    [
      'missing_input',
      { workflow: 'feature-dev', inputs: {} },
      /missing input feature: .*inputs: \{ "feature": "\.\.\." \}/,
    ],
    ['missing_input', { workflow: 'feature-dev' }, /missing input feature/],
    [
      'unknown_input',
      { workflow: 'feature-dev', inputs: { feature: 'x', featur: 'y' } },
      /no input featur \(did you mean feature\?\)/,
    ],
    [
      'unknown_workflow',
      { workflow: 'feature_dev' },
      /no workflow named "feature_dev".*did you mean "feature-dev"/,
    ],
    ['unknown_workflow', { workflow: 'workflows/x.yaml' }, /no such workflow file/],
    [
      'unknown_workflow',
      { workflow: 'nowhere/x.yaml' },
      /^workflow "nowhere\/x\.yaml" is not a workflow of this project/,
    ],
    [
      'invalid_request',
      { workflow: 'feature-dev', inputs: { feature: 'x' }, run_id: '../x' },
      /run_id "\.\.\/x"/,
    ],
    ['invalid_request', { workflow: '' }, /workflow must be/],
  ] as const)('refuses with %s and starts nothing (%j)', async (code, request, message) => {
    const projectDir = await tempProject();
    expect(await refusal(startWorkflow(projectDir, request, depsOf()), code)).toMatch(message);
    await expect(readFile(path.join(projectDir, '.agent/runs'))).rejects.toThrow(/ENOENT/);
  });

  it('refuses an invalid project definition with every problem, and a run id already used', async () => {
    const projectDir = await tempProject({
      'workflows/bad.yaml':
        'name: bad\nversion: "1"\nsteps:\n  - id: a\n    type: lop\n    instructions: x\n',
    });
    expect(
      await refusal(startWorkflow(projectDir, { workflow: 'bad' }, depsOf()), 'invalid_workflow'),
    ).toMatch(/bad\.yaml:5:11: .*did you mean "loop"/);
    await startWorkflow(
      projectDir,
      { workflow: 'chain_of_thought', inputs: { problem: 'p' }, run_id: 'r' },
      depsOf(),
    );
    await refusal(
      startWorkflow(
        projectDir,
        { workflow: 'chain_of_thought', inputs: { problem: 'p' }, run_id: 'r' },
        depsOf(),
      ),
      'run_exists',
    );
  });
});

describe('startWorkflow: a workflow reference cannot read outside the project (issue 23)', () => {
  it('refuses every outside reference with the one refusal, creates no run, and echoes no byte of any file', async () => {
    const fixture = await outsideWorkflowFixture();
    for (const [what, reference] of outsideReferences(fixture)) {
      const message = await refusal(
        startWorkflow(fixture.projectDir, { workflow: reference, run_id: 'evil-run' }, depsOf()),
        'unknown_workflow',
      );
      expect(message, what).toBe(outsideRefusal(reference));
      for (const marker of OUTSIDE_MARKERS) expect(message, what).not.toContain(marker);
    }
    await expect(readdir(path.join(fixture.projectDir, '.agent'))).rejects.toThrow(/ENOENT/);
  });

  it('gives the same text for a missing and an existing outside file (no existence oracle)', async () => {
    const fixture = await outsideWorkflowFixture();
    const messageOf = async (reference: string) =>
      (
        await refusal(
          startWorkflow(fixture.projectDir, { workflow: reference }, depsOf()),
          'unknown_workflow',
        )
      ).replace(JSON.stringify(reference), '"<ref>"');
    const existing = await messageOf(fixture.secretFile);
    expect(await messageOf(fixture.missingFile)).toBe(existing);
    expect(await messageOf(path.join(fixture.outsideDir, 'no-folder', 'x.yaml'))).toBe(existing);
    expect(await messageOf(fixture.fifoFile)).toBe(existing);
    expect(await messageOf('workflows/dangling.yaml')).toBe(existing);
    expect(await messageOf('workflows/link.yaml')).toBe(existing);
  });

  it('continues a run started from a path after that file is swapped for a symlink outside, never reading it', async () => {
    const projectDir = await tempProject({
      'workflows/two.yaml':
        'name: two\nversion: "1"\ndescription: d\nsteps:\n  - id: first\n    instructions: "First."\n  - id: second\n    instructions: "Second."\n',
    });
    const outside = await outsideWorkflowFixture();
    await startWorkflow(projectDir, { workflow: 'workflows/two.yaml', run_id: 'pinned' }, depsOf());
    await rm(path.join(projectDir, 'workflows', 'two.yaml'));
    await symlink(outside.evilFile, path.join(projectDir, 'workflows', 'two.yaml'));
    const status = await workflowStatus(projectDir, { run_id: 'pinned' }, depsOf());
    expect(status).toMatchObject({ step: 'first', instructions: 'First.' });
    const next = await advanceWorkflow(projectDir, { run_id: 'pinned', output: 'done' }, depsOf());
    expect(next).toMatchObject({ step: 'second', instructions: 'Second.' });
    expect(JSON.stringify(next)).not.toContain('EVIL-ZQ');
  });

  it('still starts a valid workflow by name and by its path under workflows/', async () => {
    const fixture = await outsideWorkflowFixture();
    const byName = await startWorkflow(fixture.projectDir, { workflow: 'good', run_id: 'n' }, depsOf());
    const byPath = await startWorkflow(
      fixture.projectDir,
      { workflow: path.join(fixture.projectDir, 'workflows', 'good.yaml'), run_id: 'p' },
      depsOf(),
    );
    expect([byName.workflow, byPath.workflow]).toEqual(['good', 'good']);
    expect(workflowYaml('good')).toContain(byName.instructions);
  });
});
