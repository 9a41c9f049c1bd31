import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { WorkflowStatusResponse } from '../../src/workflow/index.js';
import { runCli } from '../helpers/run-cli.js';
import { tempProject } from '../helpers/temp-project.js';

/** A project with a running feature-dev run `fd` and the files `docs/scope.md` and `notes.md`. */
async function projectWithRun(): Promise<string> {
  const projectDir = await tempProject({ 'docs/scope.md': '# Scope\n', 'notes.md': 'notes\n' });
  const started = await runCli(
    ['workflow', 'start', 'feature-dev', '--input', 'feature=login', '--run-id', 'fd', '--json'],
    { cwd: projectDir },
  );
  expect(started.code, started.stderr).toBe(0);
  return projectDir;
}

describe('artifact-ingest workflow register', () => {
  it('registers files (RUN_ID optional), reports duplicates with exit 0, and the status lists them', async () => {
    const projectDir = await projectWithRun();
    const first = await runCli(['workflow', 'register', 'docs/scope.md', '--json'], { cwd: projectDir });
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout)).toEqual({
      run_id: 'fd',
      registered: ['docs/scope.md'],
      duplicates: [],
      invalid: [],
    });
    // The first argument is the run when the project has a run of that name.
    const again = await runCli(['workflow', 'register', 'fd', 'docs/scope.md', 'notes.md'], {
      cwd: projectDir,
    });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toBe(
      'run fd: 1 registered, 1 already registered, 0 invalid\n  registered  notes.md\n  duplicate   docs/scope.md\n',
    );
    const status = await runCli(['workflow', 'status', '--json'], { cwd: projectDir });
    expect((JSON.parse(status.stdout) as WorkflowStatusResponse).artefacts).toEqual([
      'docs/scope.md',
      'notes.md',
    ]);
    const human = await runCli(['workflow', 'status'], { cwd: projectDir });
    expect(human.stdout).toContain('artefacts (2):\n  docs/scope.md\n  notes.md\n');
  });

  it('resolves paths against the current directory, not the project', async () => {
    const projectDir = await projectWithRun();
    const result = await runCli(['workflow', 'register', 'scope.md', '--project', projectDir, '--json'], {
      cwd: path.join(projectDir, 'docs'),
    });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ registered: ['docs/scope.md'] });
  });

  it('exits 1 when a path is invalid, registering the valid ones and saying why for the others', async () => {
    const projectDir = await projectWithRun();
    await mkdir(path.join(projectDir, '.git'), { recursive: true });
    await writeFile(path.join(projectDir, '.git', 'config'), '[core]\n');
    const result = await runCli(
      ['workflow', 'register', 'docs/scope.md', '.git/config', 'missing.md', '--json'],
      { cwd: projectDir },
    );
    expect(result.code).toBe(1);
    const body = JSON.parse(result.stdout) as {
      registered: string[];
      invalid: { path: string; code: string; message: string }[];
    };
    expect(body.registered).toEqual(['docs/scope.md']);
    expect(body.invalid.map((problem) => path.basename(problem.path))).toEqual(['config', 'missing.md']);
    const human = await runCli(['workflow', 'register', 'missing.md'], { cwd: projectDir });
    expect(human.code).toBe(1);
    expect(human.stdout).toMatch(
      /0 registered, 0 already registered, 1 invalid\n {2}invalid {5}.*missing\.md: /,
    );
  });

  it.each<[string, readonly string[], string]>([
    ['no PATH', ['register'], 'name the PATH of at least one file to register'],
    ['only a RUN_ID', ['register', 'fd'], 'name the PATH of at least one file to register'],
  ])('refuses %s with exit 2', async (_, args, message) => {
    const projectDir = await projectWithRun();
    const result = await runCli(['workflow', ...args], { cwd: projectDir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
  });

  it('refuses without a running workflow (not_started, exit 2) and for a stopped run (not_running, exit 2)', async () => {
    const empty = await tempProject({ 'a.md': 'a\n' });
    const none = await runCli(['workflow', 'register', 'a.md'], { cwd: empty });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain(
      "not_started: Workflow not started. Call 'artifact-ingest workflow start' first.",
    );

    const projectDir = await projectWithRun();
    expect((await runCli(['workflow', 'abort'], { cwd: projectDir })).code).toBe(0);
    const stopped = await runCli(['workflow', 'register', 'fd', 'notes.md'], { cwd: projectDir });
    expect(stopped.code).toBe(2);
    expect(stopped.stderr).toContain('not_running: workflow run fd is aborted');
  });
});
