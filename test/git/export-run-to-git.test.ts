import { execFileSync } from 'node:child_process';
import { chmod, cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replayRun } from '../../src/artifacts/index.js';
import { readRunCommits, refComponentForTest, swarmRefNames } from './git-test-exports.js';
import { runCli } from '../helpers/run-cli.js';
import { treeDigest } from '../helpers/tree-digest.js';
import { reaskedWorkflowRun, REASKED_RUN_ID } from '../helpers/reasked-workflow-run.js';

const git = (cwd: string, args: readonly string[], input?: string): string =>
  execFileSync('git', [...args], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' },
    ...(input === undefined ? {} : { input }),
  });

interface ExportJson {
  run_id: string;
  repo: { git_dir: string; bare: boolean; created: boolean };
  commits: { step: number; task_id: string | null; agent_id: string | null; commit: string; tree: string }[];
  refs: { ref: string; branch: string; commit: string; status: string }[];
  changed: boolean;
}

let root: string;
let demoDir: string;
let runId: string;

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'ai-git-'));
  demoDir = path.join(root, 'demo');
  const demo = await runCli(['demo', '--dir', demoDir, '--json'], { cwd: root });
  expect(demo.code, demo.stderr).toBe(0);
  runId = (JSON.parse(demo.stdout) as { run_id: string }).run_id;
}, 120_000);

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function exportJson(project: string, ...extra: string[]): Promise<ExportJson> {
  const result = await runCli(['export', 'git', runId, '--json', '--project', project, ...extra]);
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as ExportJson;
}

/** The refs, HEAD, index bytes and status of a work tree: what an export must leave byte-identical. */
async function workTreeState(dir: string): Promise<unknown> {
  return {
    status: git(dir, ['status', '--porcelain=v2', '--untracked-files=all']),
    index: (await readFile(path.join(dir, '.git', 'index'))).toString('base64'),
    head: await readFile(path.join(dir, '.git', 'HEAD'), 'utf8'),
    headCommit: git(dir, ['rev-parse', 'HEAD']),
    refs: git(dir, ['for-each-ref', '--format=%(refname) %(objectname)'])
      .split('\n')
      .filter((line) => !line.startsWith('refs/heads/swarm/')),
    files: await Promise.all(
      ['tracked.txt', 'staged.txt', 'untracked.txt'].map((name) => readFile(path.join(dir, name), 'utf8')),
    ),
  };
}

describe('export git', () => {
  it('writes the demo run into a new bare repository, one commit per completed node, trees equal to checkout --step N', async () => {
    const bare = path.join(root, 'bare.git');
    const done = await exportJson(demoDir, '--repo', bare);
    expect(done.repo).toMatchObject({ bare: true, created: true });
    const replay = await replayRun(demoDir, runId);
    const completed = replay.steps.filter((step) => step.step !== null);
    expect(done.commits.map((commit) => commit.task_id)).toEqual(completed.map((step) => step.taskId));
    expect(done.refs[0]).toMatchObject({ branch: `swarm/run-${runId}`, status: 'created' });
    expect(done.refs.map((ref) => ref.branch)).toEqual(
      expect.arrayContaining(completed.map((step) => `swarm/task-${runId}-${step.taskId}`)),
    );

    for (const [index, commit] of done.commits.entries()) {
      const step = completed[index];
      if (step === undefined) throw new Error('more commits than steps');
      const message = git(bare, ['cat-file', 'commit', commit.commit]);
      const parents = message.split('\n').filter((line) => line.startsWith('parent '));
      expect(parents).toEqual(index === 0 ? [] : [`parent ${done.commits[index - 1]?.commit ?? ''}`]);
      expect(message).toMatch(
        new RegExp(
          `^author ${step.agentId} <${step.agentId}@artifact-ingest\\.invalid> ${Math.floor(Date.parse(step.finishedAt) / 1000)} \\+0000$`,
          'm',
        ),
      );
      expect(message).toMatch(/^committer artifact-ingest <artifact-ingest@artifact-ingest\.invalid> /m);
      expect(message).not.toMatch(/^gpgsig|^encoding/m);
      const body = git(bare, ['log', '-1', '--format=%B', commit.commit]);
      const trailers = git(bare, ['interpret-trailers', '--parse'], body).trim().split('\n');
      expect(trailers).toEqual([
        `Run-Id: ${runId}`,
        `Task-Id: ${step.taskId}`,
        `Agent-Id: ${step.agentId}`,
        `Prompt-Sha256: ${step.promptSha256 ?? 'none'}`,
        ...step.artifacts.map((artifact) => `Artifact-Id: ${artifact.artifactId}`),
      ]);

      // Commit N's tree, unpacked, is byte for byte what `checkout --step N` rebuilds.
      const fromCheckout = path.join(root, `checkout-${index + 1}`);
      const checkout = await runCli([
        'checkout',
        '--step',
        String(index + 1),
        '--run',
        runId,
        '--to',
        fromCheckout,
        '--project',
        demoDir,
      ]);
      expect(checkout.code, checkout.stderr).toBe(0);
      const fromGit = path.join(root, `tree-${index + 1}`);
      await mkdir(fromGit);
      const tar = execFileSync('git', ['--git-dir', bare, 'archive', '--format=tar', commit.commit]);
      execFileSync('tar', ['-x', '-C', fromGit], { input: tar });
      normaliseModes(fromCheckout);
      normaliseModes(fromGit);
      expect(await treeDigest(fromGit)).toBe(await treeDigest(fromCheckout));
    }

    const graph = git(bare, ['log', '--graph', '--format=%s', `swarm/run-${runId}`]);
    const lines = graph.trim().split('\n');
    expect(lines).toHaveLength(completed.length);
    [...completed].reverse().forEach((step, at) => {
      expect(lines[at]).toMatch(new RegExp(`^\\* ${step.taskId} \\(${step.agentId}\\): wrote `));
    });
    expect((await readRunCommits(bare, runId)).map((commit) => commit.taskId)).toEqual(
      completed.map((step) => step.taskId),
    );

    // The auditor's commit names each block it did not write, by its declared path and the manifest's reason.
    const audit = done.commits.find((commit) => commit.task_id === 'audit');
    const auditBody = git(bare, ['log', '-1', '--format=%B', audit?.commit ?? '']);
    expect(auditBody).toContain('\nRejected blocks: 5\n');
    for (const line of [
      "  rejected ../../.bashrc: traversal: file= path contains a '..' segment",
      '  rejected /etc/cron.d/backdoor: absolute_path: ',
      '  rejected .git/hooks/pre-commit: git_dir: ',
      '  skipped "notes.txt": quoted_path: ',
    ])
      expect(auditBody).toContain(line);
  }, 120_000);

  it('gives the same commit ids a second time and changes nothing, whatever the repository config says', async () => {
    const bare = path.join(root, 'twice.git');
    const first = await exportJson(demoDir, '--repo', bare);
    const refsBefore = git(bare, ['for-each-ref']);
    const second = await exportJson(demoDir, '--repo', bare);
    expect(second.commits).toEqual(first.commits);
    expect(second.refs.every((ref) => ref.status === 'unchanged')).toBe(true);
    expect(second.changed).toBe(false);
    expect(git(bare, ['for-each-ref'])).toBe(refsBefore);

    // Signing, another commit encoding and identities in the repository's own config change no byte.
    const hostile = path.join(root, 'hostile.git');
    git(root, ['init', '--quiet', '--bare', hostile]);
    for (const [key, value] of [
      ['commit.gpgSign', 'true'],
      ['i18n.commitEncoding', 'ISO-8859-1'],
      ['user.name', 'Someone'],
      ['user.email', 'someone@example.com'],
    ] as const)
      git(hostile, ['config', key, value]);
    const third = await exportJson(demoDir, '--repo', hostile);
    expect(third.commits.map((commit) => commit.commit)).toEqual(
      first.commits.map((commit) => commit.commit),
    );
  }, 120_000);

  it('leaves a work tree with staged and unstaged changes byte-identical: status, index, HEAD and every other ref', async () => {
    const project = path.join(root, 'worktree');
    await cp(demoDir, project, { recursive: true });
    git(project, ['init', '--quiet', '-b', 'main']);
    await writeFile(path.join(project, 'tracked.txt'), 'one\n');
    await writeFile(path.join(project, 'staged.txt'), 'one\n');
    git(project, ['add', 'tracked.txt', 'staged.txt']);
    git(project, ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '--quiet', '-m', 'base']);
    git(project, ['tag', 'v1']);
    await writeFile(path.join(project, 'staged.txt'), 'staged change\n');
    git(project, ['add', 'staged.txt']);
    await writeFile(path.join(project, 'tracked.txt'), 'unstaged change\n');
    await writeFile(path.join(project, 'untracked.txt'), 'new\n');
    const before = await workTreeState(project);

    const done = await exportJson(project);
    expect(done.repo.bare).toBe(false);
    expect(done.refs.length).toBeGreaterThan(1);
    expect(await workTreeState(project)).toEqual(before);
    expect(git(project, ['rev-parse', `swarm/run-${runId}`]).trim()).toBe(done.commits.at(-1)?.commit);
  }, 120_000);

  it('exports a workflow run, one commit per completed step pass', async () => {
    const project = await reaskedWorkflowRun({ ingest: true });
    try {
      const bare = path.join(root, 'workflow.git');
      const result = await runCli([
        'export',
        'git',
        REASKED_RUN_ID,
        '--repo',
        bare,
        '--json',
        '--project',
        project,
      ]);
      expect(result.code, result.stderr).toBe(0);
      const done = JSON.parse(result.stdout) as ExportJson;
      const replay = await replayRun(project, REASKED_RUN_ID);
      const completed = replay.steps.filter((step) => step.step !== null);
      expect(completed.length).toBeGreaterThan(0);
      expect(done.commits.map((commit) => commit.task_id)).toEqual(completed.map((step) => step.taskId));
      const files = git(bare, ['ls-tree', '-r', '--name-only', `swarm/run-${REASKED_RUN_ID}`]);
      expect(files).toContain('src/parser.ts');
    } finally {
      await rm(project, { recursive: true, force: true });
    }
  }, 60_000);

  it('says git_missing (exit 2) when git is not on PATH, and git_too_old naming both versions', async () => {
    const missing = await runCli(
      ['export', 'git', runId, '--repo', path.join(root, 'never.git'), '--project', demoDir],
      {
        env: { PATH: path.join(root, 'no-bin') },
      },
    );
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/git_missing: git was not found on PATH; install git 2\.32\.0 or newer/);

    const oldBin = path.join(root, 'old-bin');
    await mkdir(oldBin);
    await writeFile(path.join(oldBin, 'git'), '#!/bin/sh\necho "git version 2.20.1"\n');
    await chmod(path.join(oldBin, 'git'), 0o755);
    const old = await runCli(
      ['export', 'git', runId, '--repo', path.join(root, 'never.git'), '--project', demoDir, '--json'],
      {
        env: { PATH: `${oldBin}:${process.env.PATH ?? ''}` },
      },
    );
    expect(old.code).toBe(2);
    expect(JSON.parse(old.stdout)).toMatchObject({ error: { code: 'git_too_old' } });
    expect(old.stderr).toMatch(/git 2\.20\.1 is too old: export git needs git 2\.32\.0 or newer/);
  });

  it('refuses a project folder outside any work tree without --repo (exit 2)', async () => {
    const result = await runCli(['export', 'git', runId, '--project', demoDir]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/not_a_git_repo: .* pass --repo DIR/);
  });

  it('refuses a branch of the same name that another run made, updating no ref', async () => {
    const bare = path.join(root, 'collide.git');
    git(root, ['init', '--quiet', '--bare', bare]);
    const tree = git(bare, ['mktree'], '').trim();
    const other = git(bare, [
      '-c',
      'user.name=t',
      '-c',
      'user.email=t@t',
      'commit-tree',
      tree,
      '-m',
      'x\n\nRun-Id: someone-else',
    ]).trim();
    git(bare, ['update-ref', `refs/heads/swarm/task-${runId}-plan`, other]);
    const before = git(bare, ['for-each-ref']);
    const result = await runCli(['export', 'git', runId, '--repo', bare, '--project', demoDir]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      new RegExp(`ref_collision: swarm/task-${runId}-plan already holds run someone-else's commit`),
    );
    expect(git(bare, ['for-each-ref'])).toBe(before);
  });

  it('stops at a corrupt object (exit 1, naming its hash) and updates no ref', async () => {
    const project = path.join(root, 'corrupt');
    await cp(demoDir, project, { recursive: true });
    const replay = await replayRun(project, runId);
    const victim = replay.steps
      .flatMap((step) => step.artifacts)
      .find((artifact) => artifact.path.startsWith('workspace/'));
    if (victim === undefined) throw new Error('the demo wrote no workspace file');
    const hex = victim.contentHash.replace(/^sha256:/, '');
    await writeFile(
      path.join(project, '.agent', 'objects', 'sha256', hex.slice(0, 2), hex.slice(2)),
      'tampered\n',
    );
    const bare = path.join(root, 'corrupt.git');
    git(root, ['init', '--quiet', '--bare', bare]);
    const result = await runCli(['export', 'git', runId, '--repo', bare, '--project', project]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(hex);
    expect(git(root, ['--git-dir', bare, 'for-each-ref'])).toBe('');
  });

  it('refuses a record naming a path outside the workspace, updating no ref', async () => {
    const project = path.join(root, 'escape');
    await cp(demoDir, project, { recursive: true });
    const records = path.join(project, '.agent', 'runs', runId, 'artifacts.jsonl');
    const text = await readFile(records, 'utf8');
    const edited = text.replace(/"path":"workspace\/([^"]+)"/, '"path":"workspace/../../outside/$1"');
    expect(edited).not.toBe(text);
    await writeFile(records, edited);
    await rm(path.join(project, '.agent', 'index'), { recursive: true, force: true });
    const bare = path.join(root, 'escape.git');
    git(root, ['init', '--quiet', '--bare', bare]);
    const result = await runCli(['export', 'git', runId, '--repo', bare, '--project', project]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/unsafe_record_path/);
    expect(git(root, ['--git-dir', bare, 'for-each-ref'])).toBe('');
  });
});

describe('ref names', () => {
  it.each([
    ['plain', 'plain'],
    ['a..b', 'a.-b'],
    ['x.lock', 'x-lock'],
    ['trail.', 'trail-'],
    ['a...b', 'a.-.b'],
  ])('makes %s a valid ref component: %s', (id, expected) => {
    expect(refComponentForTest(id)).toBe(expected);
    git(root, ['check-ref-format', `refs/heads/swarm/run-${expected}`]);
  });
});

describe('swarmRefNames', () => {
  it('refuses two tasks whose ids map to one branch, naming both', async () => {
    await expect(swarmRefNames('r1', ['a..b', 'a.-b'], root)).rejects.toMatchObject({
      code: 'ref_collision',
      message: expect.stringContaining(
        'tasks "a..b" and "a.-b" of run r1 would share the branch swarm/task-r1-a.-b',
      ) as unknown,
    });
  });
});

/** Files and folders to one mode each: git stores no folder mode and a checkout's umask may differ. */
function normaliseModes(dir: string): void {
  execFileSync('find', [dir, '-type', 'd', '-exec', 'chmod', '755', '{}', '+']);
  execFileSync('find', [dir, '-type', 'f', '-exec', 'chmod', '644', '{}', '+']);
}
