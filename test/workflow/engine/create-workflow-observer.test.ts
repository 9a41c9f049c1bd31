import { execFile } from 'node:child_process';
import { access, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import {
  advanceWorkflow,
  createWorkflowObserver,
  registerWorkflowArtefacts,
  startWorkflow,
  workflowStatus,
} from '../../../src/workflow/index.js';
import type { WorkflowEngineDeps } from '../../../src/workflow/index.js';
import { readEvents, tempProject } from '../../helpers/temp-project.js';
import { depsOf, refusal, stateBytes } from './fixtures/engine-fixtures.js';

const run = promisify(execFile);
const REPO = path.resolve(import.meta.dirname, '../../..');
const NONE = { unregistered: [], phantom: [] };

/** A project with a README and a source file present before the workflow starts. */
async function project(): Promise<string> {
  return tempProject({ 'README.md': '# readme\n', 'src/old.ts': 'export const old = 1;\n' });
}

async function start(projectDir: string, deps: WorkflowEngineDeps = depsOf()): Promise<void> {
  await startWorkflow(projectDir, { workflow: 'feature-dev', inputs: { feature: 'f' }, run_id: 'w' }, deps);
}

/** The agent writes a file in the project (as an outside assistant does, with plain fs calls). */
async function agentWrites(projectDir: string, file: string, text: string): Promise<void> {
  await mkdir(path.dirname(path.join(projectDir, file)), { recursive: true });
  await writeFile(path.join(projectDir, file), text);
}

async function lastCompleted(projectDir: string): Promise<Record<string, unknown> | undefined> {
  return (await readEvents(projectDir, 'w')).filter((event) => event.event === 'step.completed').at(-1);
}

/** From scope to implement-1 (require_registration), registering what each step wrote. */
async function toImplement(projectDir: string): Promise<void> {
  await agentWrites(projectDir, 'docs/scope.md', 'scope\n');
  await registerWorkflowArtefacts(projectDir, { paths: ['docs/scope.md'] }, depsOf());
  await advanceWorkflow(projectDir, { output: 'the scope' }, depsOf());
  await advanceWorkflow(projectDir, { output: 'task a\ntask b' }, depsOf());
}

describe('declared versus observed, by default', () => {
  it('an agent that forgets to register: its writes are unregistered in the status and step.completed', async () => {
    const projectDir = await project();
    await start(projectDir);
    expect(await workflowStatus(projectDir)).toMatchObject({ reconciliation: NONE });
    await agentWrites(projectDir, 'docs/scope.md', 'scope\n');
    await agentWrites(projectDir, 'src/old.ts', 'export const old = 2;\n');
    const expected = { unregistered: ['docs/scope.md', 'src/old.ts'], phantom: [] };
    expect((await workflowStatus(projectDir)).reconciliation).toEqual(expected);
    // scope has no require_registration: the advance goes through and reports.
    expect(await advanceWorkflow(projectDir, { output: 'the scope' }, depsOf())).toMatchObject({
      step: 'plan',
    });
    expect(await lastCompleted(projectDir)).toMatchObject({ step: 'scope', reconciliation: expected });
    // The next pass starts from a new snapshot: the engine's own step document is not the agent's write.
    expect((await workflowStatus(projectDir)).reconciliation).toEqual(NONE);
  });

  it("records each finished pass as a trace artifact carrying the pass's reconciliation", async () => {
    const projectDir = await project();
    await start(projectDir);
    await agentWrites(projectDir, 'docs/scope.md', 'scope\n');
    await advanceWorkflow(projectDir, { output: 'the scope' }, depsOf());
    const records = (await readFile(path.join(projectDir, '.agent/runs/w/artifacts.jsonl'), 'utf8'))
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as { type: string; taskId: string; contentHash: string });
    const traces = records.filter((record) => record.type === 'trace');
    expect(traces.map((record) => record.taskId)).toEqual(['scope']);
    const hex = (traces[0]?.contentHash ?? '').replace('sha256:', '');
    const trace = JSON.parse(
      await readFile(path.join(projectDir, '.agent/objects/sha256', hex.slice(0, 2), hex.slice(2)), 'utf8'),
    ) as Record<string, unknown>;
    expect(trace).toMatchObject({
      runId: 'w',
      nodeId: 'scope',
      agent: 'workflow',
      graph: { name: 'feature-dev' },
      outcome: 'completed',
      document: { path: 'docs/w/scope.md' },
      reconciliation: { unregistered: ['docs/scope.md'], phantom: [] },
    });
  });

  it('with require_registration the forgetful agent cannot advance until it registers', async () => {
    const projectDir = await project();
    await start(projectDir);
    await toImplement(projectDir);
    await agentWrites(projectDir, 'src/a.ts', 'export const a = 1;\n');
    const before = await stateBytes(projectDir, 'w');
    const eventsBefore = await readEvents(projectDir, 'w');
    const message = await refusal(
      advanceWorkflow(projectDir, { output: 'done a' }, depsOf()),
      'registration_required',
    );
    expect(message).toBe(
      'step implement requires registration and these changed files are not registered: src/a.ts; call register_artefacts with them, then workflow_advance again',
    );
    expect(await stateBytes(projectDir, 'w')).toBe(before);
    expect(await readEvents(projectDir, 'w')).toEqual(eventsBefore);
    await registerWorkflowArtefacts(projectDir, { paths: ['src/a.ts'] }, depsOf());
    expect(await advanceWorkflow(projectDir, { output: 'done a' }, depsOf())).toMatchObject({
      step: 'implement',
      task: { index: 2 },
    });
    expect(await lastCompleted(projectDir)).toMatchObject({
      step: 'implement',
      pass: 1,
      reconciliation: NONE,
    });
    // A new pass claims nothing yet.
    expect(JSON.parse(await stateBytes(projectDir, 'w'))).toMatchObject({
      artefacts: ['docs/scope.md', 'src/a.ts'],
      step_artefacts: [],
    });
    await access(path.join(projectDir, '.agent/runs/w/snapshots/implement-2.json'));

    // A deletion is reported but never blocks: a deleted file cannot be registered.
    await rm(path.join(projectDir, 'src/old.ts'));
    await advanceWorkflow(projectDir, { output: 'done b' }, depsOf());
    expect(await lastCompleted(projectDir)).toMatchObject({
      pass: 2,
      reconciliation: { unregistered: ['src/old.ts'], phantom: [] },
    });
  });

  it('an agent that claims files it never wrote: phantom, including one it deleted after registering', async () => {
    const projectDir = await project();
    await start(projectDir);
    await agentWrites(projectDir, 'docs/gone.md', 'soon gone\n');
    const result = await registerWorkflowArtefacts(
      projectDir,
      { paths: ['README.md', 'docs/gone.md'] },
      depsOf(),
    );
    expect(result.registered).toEqual(['README.md', 'docs/gone.md']);
    await rm(path.join(projectDir, 'docs/gone.md'));
    const expected = { unregistered: [], phantom: ['README.md', 'docs/gone.md'] };
    expect((await workflowStatus(projectDir)).reconciliation).toEqual(expected);
    await advanceWorkflow(projectDir, { output: 'the scope' }, depsOf());
    expect(await lastCompleted(projectDir)).toMatchObject({ reconciliation: expected });
  });

  it('a re-registration in a later step counts as claimed in that step', async () => {
    const projectDir = await project();
    await start(projectDir);
    await toImplement(projectDir);
    await agentWrites(projectDir, 'docs/scope.md', 'scope, edited while implementing\n');
    const again = await registerWorkflowArtefacts(projectDir, { paths: ['docs/scope.md'] }, depsOf());
    expect(again).toMatchObject({ registered: [], duplicates: ['docs/scope.md'] });
    expect((await workflowStatus(projectDir)).reconciliation).toEqual(NONE);
    await advanceWorkflow(projectDir, { output: 'done a' }, depsOf());
  });

  it('invalid paths claim nothing: the forgetful agent stays blocked', async () => {
    const projectDir = await project();
    await start(projectDir);
    await toImplement(projectDir);
    await agentWrites(projectDir, 'src/a.ts', 'a\n');
    const result = await registerWorkflowArtefacts(
      projectDir,
      { paths: ['../src/a.ts', '.git/src/a.ts', path.join(path.dirname(projectDir), 'a.ts')] },
      depsOf(),
    );
    expect(result.invalid).toHaveLength(3);
    expect(JSON.parse(await stateBytes(projectDir, 'w'))).toMatchObject({ step_artefacts: [] });
    await refusal(advanceWorkflow(projectDir, { output: 'done a' }, depsOf()), 'registration_required');
  });

  it('a restart between start and advance keeps the reconciliation exact (another process started the step)', async () => {
    const projectDir = await project();
    // Process one: starts the workflow, the agent writes three files and registers one plus a phantom.
    const script = path.join(projectDir, '..', `${path.basename(projectDir)}-first.mts`);
    const engine = path.join(REPO, 'src/workflow/index.ts');
    await writeFile(
      script,
      [
        `import { mkdir, writeFile } from 'node:fs/promises';`,
        `import { registerWorkflowArtefacts, startWorkflow } from ${JSON.stringify(engine)};`,
        `const dir = ${JSON.stringify(projectDir)};`,
        `const deps = { durability: 'none' as const };`,
        `await startWorkflow(dir, { workflow: 'feature-dev', inputs: { feature: 'f' }, run_id: 'w' }, deps);`,
        `await mkdir(dir + '/docs', { recursive: true });`,
        `await writeFile(dir + '/docs/scope.md', 'scope');`,
        `await writeFile(dir + '/docs/notes.md', 'notes');`,
        `await writeFile(dir + '/src/old.ts', 'changed');`,
        `await registerWorkflowArtefacts(dir, { paths: ['docs/scope.md', 'README.md'] }, deps);`,
      ].join('\n'),
    );
    try {
      await run(path.join(REPO, 'node_modules/.bin/tsx'), [script], { cwd: REPO });
    } finally {
      await rm(script, { force: true });
    }
    // Process two (this one): a fresh engine with a fresh observer reads the snapshot and step_artefacts back.
    const expected = { unregistered: ['docs/notes.md', 'src/old.ts'], phantom: ['README.md'] };
    expect((await workflowStatus(projectDir)).reconciliation).toEqual(expected);
    await advanceWorkflow(
      projectDir,
      { output: 'the scope' },
      { ...depsOf(), observer: createWorkflowObserver() },
    );
    expect(await lastCompleted(projectDir)).toMatchObject({ step: 'scope', reconciliation: expected });
  }, 30_000);

  it('with snapshots off there is no snapshot, no reconciliation and no registration gate', async () => {
    const projectDir = await project();
    const off = { ...depsOf(), snapshots: false };
    await start(projectDir, off);
    await advanceWorkflow(projectDir, { output: 'the scope' }, off);
    await advanceWorkflow(projectDir, { output: 'task a' }, off);
    await agentWrites(projectDir, 'src/a.ts', 'a\n');
    expect((await workflowStatus(projectDir, {}, off)).reconciliation).toBeUndefined();
    // A pass whose start was never snapshotted has no reconciliation under the default observer either.
    expect((await workflowStatus(projectDir)).reconciliation).toBeUndefined();
    expect(await advanceWorkflow(projectDir, { output: 'done a' }, depsOf())).toMatchObject({
      step: 'polish',
    });
    await expect(access(path.join(projectDir, '.agent/runs/w/snapshots/scope.json'))).rejects.toThrow();
    expect(await lastCompleted(projectDir)).not.toHaveProperty('reconciliation');
  });

  it('a damaged start snapshot refuses the advance with snapshot_unreadable; the status still answers', async () => {
    const projectDir = await project();
    await start(projectDir);
    await writeFile(path.join(projectDir, '.agent/runs/w/snapshots/scope.json'), 'not json');
    const status = await workflowStatus(projectDir);
    expect(status.step).toBe('scope');
    expect(status.reconciliation).toBeUndefined();
    const before = await stateBytes(projectDir, 'w');
    expect(
      await refusal(advanceWorkflow(projectDir, { output: 'the scope' }, depsOf()), 'snapshot_unreadable'),
    ).toMatch(/delete it to snapshot again/);
    expect(await stateBytes(projectDir, 'w')).toBe(before);
    // Deleted: the pass counts as never observed and can end.
    await rm(path.join(projectDir, '.agent/runs/w/snapshots/scope.json'));
    await advanceWorkflow(projectDir, { output: 'the scope' }, depsOf());
    expect(await readFile(path.join(projectDir, '.agent/runs/w/snapshots/plan.json'), 'utf8')).toContain(
      '"files"',
    );
  });
});
