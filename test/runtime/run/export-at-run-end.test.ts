import { execFileSync } from 'node:child_process';
import { appendFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readRunCommits } from '../../../src/git/index.js';
import { runCli } from '../../helpers/run-cli.js';
import { readEvents } from '../../helpers/temp-project.js';

const GOAL = 'goal=a tiny URL shortener with tests and a README';
let root: string;
let demoDir: string;

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'ai-git-auto-'));
  demoDir = path.join(root, 'demo');
  const demo = await runCli(['demo', '--dir', demoDir, '--json'], { cwd: root });
  expect(demo.code, demo.stderr).toBe(0);
}, 120_000);

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function runTeam(runId: string): Promise<void> {
  const run = await runCli([
    'run',
    'team',
    '--project',
    demoDir,
    '--run-id',
    runId,
    '--input',
    GOAL,
    '--json',
  ]);
  expect(run.code, run.stderr).toBe(0);
}

describe('git: { export: true }', () => {
  it('exports a run as it ends into the configured repository, with an INFO git.exported event', async () => {
    const bare = path.join(root, 'auto.git');
    await appendFile(
      path.join(demoDir, 'artifact-ingest.config.yaml'),
      `git:\n  export: true\n  repo: ${bare}\n`,
    );
    await runTeam('auto-ok');
    const commits = await readRunCommits(bare, 'auto-ok');
    // The demo's run left files in the workspace: the root commit holds them, with no Task-Id.
    expect(commits[0]).toMatchObject({ taskId: null, subject: 'workspace before run auto-ok' });
    expect(commits.slice(1).map((commit) => commit.taskId)).toEqual(
      expect.arrayContaining(['plan', 'audit', 'final']),
    );
    const parents = execFileSync(
      'git',
      ['--git-dir', bare, 'rev-list', '--parents', '--reverse', 'swarm/run-auto-ok'],
      {
        encoding: 'utf8',
      },
    )
      .trim()
      .split('\n')
      .map((line) => line.split(' ').length - 1);
    expect(parents).toEqual([0, ...commits.slice(1).map(() => 1)]);
    const events = await readEvents(demoDir, 'auto-ok');
    expect(
      events.find((event) => event['event'] === 'git.exported' || event['msg'] === 'git.exported'),
    ).toBeDefined();
  }, 120_000);

  it('keeps the run when the export fails: a WARNING git.export_failed event, exit 0', async () => {
    const notRepo = path.join(root, 'not-a-repo');
    await writeFile(notRepo, 'a file, not a folder\n');
    const config = path.join(demoDir, 'artifact-ingest.config.yaml');
    const text = execFileSync('sed', ['/^git:/,$d', config], { encoding: 'utf8' });
    await writeFile(config, `${text}git:\n  export: true\n  repo: ${notRepo}\n`);
    await runTeam('auto-fail');
    const events = await readEvents(demoDir, 'auto-fail');
    const failed = events.find((event) => JSON.stringify(event).includes('git.export_failed'));
    expect(failed).toMatchObject({ level: expect.stringMatching(/warn/i) as unknown });
    expect(JSON.stringify(failed)).toContain('not_a_git_repo');
  }, 120_000);

  it('refuses a bad value with the line and what to write', async () => {
    const config = path.join(demoDir, 'artifact-ingest.config.yaml');
    const text = execFileSync('sed', ['/^git:/,$d', config], { encoding: 'utf8' });
    await writeFile(config, `${text}git:\n  export: maybe\n`);
    const run = await runCli(['run', 'team', '--project', demoDir, '--input', GOAL]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/git\.export.*expected true or false, got "maybe"; write "export: true"/s);
    await writeFile(config, text);
  });
});
