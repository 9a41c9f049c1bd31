import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  abortWorkflow,
  registerArtefacts,
  registerWorkflowArtefacts,
  startWorkflow,
  workflowErrorCodeOf,
  workflowStatus,
} from '../../../src/workflow/index.js';
import { parseNodeId, parseRunId } from '../../../src/project/index.js';
import { readEvents, tempProject } from '../../helpers/temp-project.js';
import { depsOf, refusal, stateBytes } from './fixtures/engine-fixtures.js';

async function started(runId = 'reg'): Promise<string> {
  const projectDir = await tempProject();
  await startWorkflow(
    projectDir,
    { workflow: 'feature-dev', inputs: { feature: 'f' }, run_id: runId },
    depsOf(),
  );
  return projectDir;
}

async function put(projectDir: string, file: string, text: string): Promise<void> {
  await mkdir(path.dirname(path.join(projectDir, file)), { recursive: true });
  await writeFile(path.join(projectDir, file), text);
}

async function recordLines(projectDir: string, runId: string): Promise<Record<string, unknown>[]> {
  const text = await readFile(path.join(projectDir, '.agent/runs', runId, 'artifacts.jsonl'), 'utf8').catch(
    () => '',
  );
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('registerWorkflowArtefacts', () => {
  it('registers, records, appends to artefacts and step_artefacts, and logs artefacts.registered', async () => {
    const projectDir = await started();
    await put(projectDir, 'docs/scope.md', '# scope\n');
    await put(projectDir, 'src/a.ts', 'export const a = 1;\n');
    const result = await registerWorkflowArtefacts(
      projectDir,
      { paths: ['docs/scope.md', path.join(projectDir, 'src/a.ts'), 'docs/scope.md'] },
      depsOf(),
    );
    expect(result).toEqual({
      run_id: 'reg',
      registered: ['docs/scope.md', 'src/a.ts'],
      duplicates: ['docs/scope.md'],
      invalid: [],
    });
    const state = JSON.parse(await stateBytes(projectDir, 'reg')) as Record<string, unknown>;
    expect(state).toMatchObject({
      artefacts: ['docs/scope.md', 'src/a.ts'],
      step_artefacts: ['docs/scope.md', 'src/a.ts'],
      revision: 1,
    });
    expect((await workflowStatus(projectDir)).artefacts).toEqual(['docs/scope.md', 'src/a.ts']);
    const records = await recordLines(projectDir, 'reg');
    expect(
      records.map((record) => [record.path, record.taskId, (record.metadata as { source: string }).source]),
    ).toEqual([
      ['docs/scope.md', 'scope', 'register'],
      ['src/a.ts', 'scope', 'register'],
    ]);
    expect((await readEvents(projectDir, 'reg')).at(-1)).toMatchObject({
      event: 'artefacts.registered',
      run_id: 'reg',
      step: 'scope',
      registered: ['docs/scope.md', 'src/a.ts'],
      duplicates: ['docs/scope.md'],
      invalid: [],
      records: records.map((record) => record.artifactId),
    });
  });

  it('a later call reports earlier registrations as duplicates and re-records only changed bytes', async () => {
    const projectDir = await started();
    await put(projectDir, 'a.md', 'one\n');
    await registerWorkflowArtefacts(projectDir, { paths: ['a.md'] }, depsOf());
    const again = await registerWorkflowArtefacts(projectDir, { paths: ['a.md'] }, depsOf());
    expect(again).toMatchObject({ registered: [], duplicates: ['a.md'], invalid: [] });
    expect(await recordLines(projectDir, 'reg')).toHaveLength(1);
    await put(projectDir, 'a.md', 'two\n');
    await registerWorkflowArtefacts(projectDir, { paths: ['a.md'] }, depsOf());
    const records = await recordLines(projectDir, 'reg');
    expect(records).toHaveLength(2);
    expect((records[1]?.metadata as { previous?: string }).previous).toBe(records[0]?.artifactId);
    expect(JSON.parse(await stateBytes(projectDir, 'reg'))).toMatchObject({ artefacts: ['a.md'] });
  });

  it('refuses invalid, unsafe and escaping paths one by one and records nothing for them', async () => {
    const projectDir = await started();
    const outside = await tempProject();
    await put(outside, 'secret.txt', 'secret\n');
    await put(projectDir, 'real.md', 'real\n');
    await symlink(path.join(outside, 'secret.txt'), path.join(projectDir, 'link.md'));
    await symlink(outside, path.join(projectDir, 'linkdir'));
    await put(projectDir, '.git/config', '[core]\n');
    const before = await stateBytes(projectDir, 'reg');
    const result = await registerWorkflowArtefacts(
      projectDir,
      {
        paths: [
          '../escape.md',
          path.join(outside, 'secret.txt'),
          'link.md',
          'linkdir/secret.txt',
          '.git/config',
          '.agent/runs/reg/state.json',
          'missing.md',
          '',
        ],
      },
      depsOf(),
    );
    expect(result.registered).toEqual([]);
    expect(result.duplicates).toEqual([]);
    expect(result.invalid.map(({ path: given, code }) => [given, code])).toEqual([
      ['../escape.md', 'outside_project'],
      [path.join(outside, 'secret.txt'), 'outside_project'],
      ['link.md', 'symlink'],
      ['linkdir/secret.txt', 'symlink'],
      ['.git/config', 'git_dir'],
      ['.agent/runs/reg/state.json', 'agent_dir'],
      ['missing.md', 'not_found'],
      ['', 'empty_path'],
    ]);
    for (const entry of result.invalid) expect(entry.message).not.toBe('');
    // Only invalid paths: no state write (same revision), no record.
    expect(await stateBytes(projectDir, 'reg')).toBe(before);
    expect(await recordLines(projectDir, 'reg')).toEqual([]);
    expect((await readEvents(projectDir, 'reg')).at(-1)).toMatchObject({
      event: 'artefacts.registered',
      level: 'WARNING',
      registered: [],
      invalid: result.invalid.map(({ path: given, code }) => ({ path: given, code })),
    });
  });

  it.each([
    ['a string', 'a.md'],
    ['an object', { 0: 'a.md' }],
    ['undefined', undefined],
    ['a number entry', ['a.md', 42]],
    ['a null entry', [null]],
  ])('refuses paths that are %s with invalid_request and changes nothing', async (_name, paths) => {
    const projectDir = await started();
    await put(projectDir, 'a.md', 'a\n');
    const before = await stateBytes(projectDir, 'reg');
    const eventsBefore = await readEvents(projectDir, 'reg');
    const message = await refusal(
      registerWorkflowArtefacts(projectDir, { paths }, depsOf()),
      'invalid_request',
    );
    expect(message).toMatch(/^paths must be an array of strings/);
    expect(await stateBytes(projectDir, 'reg')).toBe(before);
    expect(await recordLines(projectDir, 'reg')).toEqual([]);
    expect(await readEvents(projectDir, 'reg')).toEqual(eventsBefore);
  });

  it('selects runs as the other calls: none, several, a bad id, a stopped run', async () => {
    const empty = await tempProject();
    await refusal(registerWorkflowArtefacts(empty, { paths: [] }, depsOf()), 'not_started');
    const projectDir = await started('one');
    await startWorkflow(
      projectDir,
      { workflow: 'feature-dev', inputs: { feature: 'g' }, run_id: 'two' },
      depsOf(),
    );
    await put(projectDir, 'a.md', 'a\n');
    await refusal(registerWorkflowArtefacts(projectDir, { paths: ['a.md'] }, depsOf()), 'several_running');
    await refusal(
      registerWorkflowArtefacts(projectDir, { run_id: '../x', paths: [] }, depsOf()),
      'invalid_request',
    );
    await refusal(
      registerWorkflowArtefacts(projectDir, { run_id: 'nope', paths: [] }, depsOf()),
      'unknown_run',
    );
    await abortWorkflow(projectDir, { run_id: 'one' }, depsOf());
    const before = await stateBytes(projectDir, 'one');
    await refusal(
      registerWorkflowArtefacts(projectDir, { run_id: 'one', paths: ['a.md'] }, depsOf()),
      'not_running',
    );
    expect(await stateBytes(projectDir, 'one')).toBe(before);
    expect(await recordLines(projectDir, 'one')).toEqual([]);
    // The one left running is chosen without run_id.
    expect(await registerWorkflowArtefacts(projectDir, { paths: ['a.md'] }, depsOf())).toMatchObject({
      run_id: 'two',
      registered: ['a.md'],
    });
  });

  it('a retry after records were written but the state was not records nothing twice', async () => {
    // The crash window: observe's registerArtefacts wrote the records, the state write never happened.
    const projectDir = await started();
    await put(projectDir, 'a.md', 'a\n');
    await registerArtefacts(
      projectDir,
      {
        runId: parseRunId('reg'),
        taskId: parseNodeId('scope'),
        agentId: 'workflow',
        paths: ['a.md'],
        already: [],
      },
      { durability: 'none' },
    );
    expect(await recordLines(projectDir, 'reg')).toHaveLength(1);
    const retry = await registerWorkflowArtefacts(projectDir, { paths: ['a.md'] }, depsOf());
    expect(retry.registered).toEqual(['a.md']);
    // Same run, step, path and bytes: the same artifact id, so the recorder skips it.
    expect(await recordLines(projectDir, 'reg')).toHaveLength(1);
    expect(JSON.parse(await stateBytes(projectDir, 'reg'))).toMatchObject({ artefacts: ['a.md'] });
  });

  it('of two concurrent calls, each lands once and the artefacts list has no duplicate', async () => {
    const projectDir = await started();
    await put(projectDir, 'a.md', 'a\n');
    await put(projectDir, 'b.md', 'b\n');
    const outcomes = await Promise.allSettled([
      registerWorkflowArtefacts(projectDir, { paths: ['a.md'] }, depsOf()),
      registerWorkflowArtefacts(projectDir, { paths: ['a.md', 'b.md'] }, depsOf()),
    ]);
    const state = JSON.parse(await stateBytes(projectDir, 'reg')) as {
      artefacts: string[];
      revision: number;
    };
    const won = outcomes.filter((outcome) => outcome.status === 'fulfilled');
    for (const outcome of outcomes) {
      if (outcome.status === 'rejected') expect(workflowErrorCodeOf(outcome.reason)).toBe('state_conflict');
    }
    expect(state.revision).toBe(won.length);
    expect(new Set(state.artefacts).size).toBe(state.artefacts.length);
    // Only winners recorded: one record per distinct path they registered.
    const records = await recordLines(projectDir, 'reg');
    expect(records.map((record) => record.path).sort()).toEqual([...state.artefacts].sort());
  });
});
