import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_PROJECT_CONFIG } from '../../src/config/index.js';
import type { ProjectConfig } from '../../src/config/index.js';
import { readRunCommits } from '../../src/git/index.js';
import { advanceWorkflow, startWorkflow } from '../../src/workflow/index.js';
import type { WorkflowEngineDeps } from '../../src/workflow/index.js';
import { fileBlock, readEvents, tempProject } from '../helpers/temp-project.js';

const WORKFLOW = `name: one\nversion: "1"\nsteps:\n  - id: write\n    instructions: "Write it."\n`;
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function completedWorkflow(repo: string, runId = 'wf-git'): Promise<string> {
  const projectDir = await tempProject({ 'workflows/one.yaml': WORKFLOW });
  const config: ProjectConfig = { ...DEFAULT_PROJECT_CONFIG, git: { export: true, repo } };
  let tick = Date.parse('2026-03-01T10:00:00.000Z');
  const deps: WorkflowEngineDeps = {
    durability: 'none',
    snapshots: false,
    env: { ARTIFACT_INGEST: '1' },
    config,
    now: () => new Date((tick += 1000)),
  };
  await startWorkflow(projectDir, { workflow: 'one', run_id: runId }, deps);
  const done = await advanceWorkflow(
    projectDir,
    { output: `Done.\n\n${fileBlock('ts', 'src/a.ts', 'export const a = 1;')}` },
    deps,
  );
  expect(done.status).toBe('complete');
  return projectDir;
}

describe('exportAtRunEnd in the workflow engine', () => {
  it('exports a workflow run as it completes', async () => {
    const root = await mkdtemp(path.join(tmpdir(), 'ai-git-wf-'));
    dirs.push(root);
    const bare = path.join(root, 'runs.git');
    const projectDir = await completedWorkflow(bare);
    const commits = await readRunCommits(bare, 'wf-git');
    expect(commits.map((commit) => commit.taskId)).toEqual(['write']);
    const events = await readEvents(projectDir, 'wf-git');
    expect(events.some((event) => event['event'] === 'git.exported')).toBe(true);
  });

  it('completes the run when the export fails, with a WARNING git.export_failed event', async () => {
    const root = await mkdtemp(path.join(tmpdir(), 'ai-git-wf-'));
    dirs.push(root);
    const notRepo = path.join(root, 'a-file');
    await writeFile(notRepo, 'not a repository\n');
    const projectDir = await completedWorkflow(notRepo);
    const events = await readEvents(projectDir, 'wf-git');
    const failed = events.find((event) => event['event'] === 'git.export_failed');
    expect(failed).toMatchObject({ level: 'WARNING', code: 'not_a_git_repo' });
  });

  it('makes a run id git refuses as it is into a valid branch name', async () => {
    const root = await mkdtemp(path.join(tmpdir(), 'ai-git-wf-'));
    dirs.push(root);
    const bare = path.join(root, 'runs.git');
    await completedWorkflow(bare, 'wf..x.lock');
    const refs = execFileSync('git', ['--git-dir', bare, 'for-each-ref', '--format=%(refname)'], {
      encoding: 'utf8',
    });
    expect(refs.trim().split('\n')).toEqual([
      'refs/heads/swarm/run-wf.-x-lock',
      'refs/heads/swarm/task-wf.-x-lock-write',
    ]);
    expect((await readRunCommits(bare, 'wf..x.lock')).map((commit) => commit.taskId)).toEqual(['write']);
  });

  it('reads no commits where there is no repository or no such branch', async () => {
    const root = await mkdtemp(path.join(tmpdir(), 'ai-git-wf-'));
    dirs.push(root);
    expect(await readRunCommits(root, 'wf-git')).toEqual([]);
    expect(await readRunCommits(path.join(root, 'missing'), 'wf-git')).toEqual([]);
    expect(await readRunCommits(root, 'wf-git', path.join(root, 'no-bin'))).toEqual([]);
  });
});
