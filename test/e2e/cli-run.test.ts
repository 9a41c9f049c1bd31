import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { lstat, mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CLI, runCli, spawnCli } from '../helpers/run-cli.js';
import { tempFileName } from '../../src/workspace/temp-file-name.js';
import { readEvents, tempProject } from '../helpers/temp-project.js';
import { growTmpfs, mountReadOnly, mountSmallTmpfs } from '../helpers/read-only-mount.js';

const replayConfig = (dir = 'replies'): string =>
  `agents:\n  planner: { kind: replay, dir: ${dir} }\n  builder: { kind: replay, dir: ${dir} }\n  auditor: { kind: replay, dir: ${dir} }\n  writer: { kind: replay, dir: ${dir} }\n`;

const threeNodes = `name: three
version: "1"
description: a, then b (slow), then c
inputs: [topic]
nodes:
  - { id: a, type: agent_task, agent: fast, prompt: "start {topic}", output_path: "docs/a.md" }
  - { id: b, type: agent_task, agent: slow, depends_on: [a], prompt: "continue {a.output}", output_path: "docs/b.md" }
  - { id: c, type: write_file, depends_on: [b], content: "# Done\\n\\n{b.output}", output_path: "docs/c.md" }
`;

async function untilFile(file: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!existsSync(file)) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${file}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('artifact-ingest demo', () => {
  it('runs the team graph with replay agents and ingest on, into a fresh project', async () => {
    const parent = await tempProject({});
    const dir = path.join(parent, 'demo');
    // The one demo through the real binary: bin, dynamic imports and fixtures as installed.
    const first = await spawnCli(['demo', '--dir', dir]);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/COMPLETED/);
    // blocks, written, skipped, I/O errors, rejected
    expect(first.stdout).toMatch(/^total\s+7\/7 completed\s+7 documents\s+20\s+8\s+7\s+0\s+5$/m);
    const [runId] = await readdir(path.join(dir, '.agent', 'runs'));
    expect(first.stdout).toContain(`npx artifact-ingest replay ${runId!} --project ${dir}\n`);
    // The nested README survived intact; the last store.js version won; nothing escaped or was half-written.
    expect(await readFile(path.join(dir, 'workspace/README.md'), 'utf8')).toContain(
      'curl -X POST localhost:3000/links -d \'{"url":"https://example.com"}\'\n```\n',
    );
    expect(await readFile(path.join(dir, 'workspace/src/store.js'), 'utf8')).toContain('MAX_LINKS');
    await expect(lstat(path.join(dir, 'workspace/src/metrics.js'))).rejects.toThrow();
    await expect(lstat(path.join(parent, '.bashrc'))).rejects.toThrow();

    await writeFile(path.join(dir, 'stale.txt'), 'old');
    expect((await runCli(['demo', '--dir', dir])).code).toBe(0);
    await expect(lstat(path.join(dir, 'stale.txt'))).rejects.toThrow();
  });

  it('refuses to replace a folder the demo did not create', async () => {
    const parent = await tempProject({ 'mine/keep.txt': 'precious' });
    const { code, stderr } = await runCli(['demo', '--dir', path.join(parent, 'mine')]);
    expect(code).toBe(2);
    expect(stderr).toContain('was not made by the demo');
    expect(await readFile(path.join(parent, 'mine/keep.txt'), 'utf8')).toBe('precious');
  });
});

describe('artifact-ingest run', () => {
  const replies = fileURLToPath(new URL('../../fixtures/demo/replies/', import.meta.url));

  async function teamProject(config = replayConfig()): Promise<string> {
    const projectDir = await tempProject({ 'artifact-ingest.config.yaml': config });
    const { cp } = await import('node:fs/promises');
    await cp(replies, path.join(projectDir, 'replies'), { recursive: true });
    return projectDir;
  }

  it('runs with ingest off by default: documents, state and events, but no workspace', async () => {
    const projectDir = await teamProject();
    const { code, stdout } = await runCli([
      'run',
      'team',
      '--project',
      projectDir,
      '--input',
      'goal=x',
      '--run-id',
      'r1',
    ]);
    expect(code).toBe(0);
    expect(stdout).toContain('ingest: off (from default)');
    expect(await readFile(path.join(projectDir, 'docs/tasks/api.md'), 'utf8')).toContain('MAX_LINKS');
    await expect(lstat(path.join(projectDir, 'workspace'))).rejects.toThrow();
    const events = await readEvents(projectDir, 'r1');
    expect(events.filter((e) => e.event === 'node.completed')).toHaveLength(7);
    expect(events.some((e) => String(e.event).startsWith('ingest.'))).toBe(false);
  });

  it.each([
    [['--ingest'], {}, 'on (from cli)'],
    [[], { ARTIFACT_INGEST: 'on' }, 'on (from env)'],
    [['--no-ingest'], { ARTIFACT_INGEST: '1' }, 'off (from cli)'],
  ])('resolves the ingest flag %j with env %j as %s', async (flags, env, expected) => {
    const projectDir = await teamProject();
    const { code, stdout } = await runCli(
      ['run', 'team', '--project', projectDir, '--input', 'goal=x', ...flags],
      { env },
    );
    expect(code).toBe(0);
    expect(stdout).toContain(`ingest: ${expected}`);
    expect(existsSync(path.join(projectDir, 'workspace/src/store.js'))).toBe(expected.startsWith('on'));
  });

  it('says how to start again a run killed before its first state write, and the fresh run sweeps its temp file', async () => {
    const projectDir = await teamProject();
    // What a SIGKILL during the first state write leaves: the folder, the lock and an empty temp file of a
    // writer (this host) that is gone.
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
      encoding: 'utf8',
    });
    const temp = tempFileName().replace(
      `-${process.pid.toString(16).padStart(8, '0')}-`,
      `-${Number(dead.stdout).toString(16).padStart(8, '0')}-`,
    );
    await mkdir(path.join(projectDir, '.agent/runs/k0'), { recursive: true });
    await writeFile(path.join(projectDir, '.agent/runs/k0', temp), '');
    await writeFile(path.join(projectDir, '.agent/runs/k0/events.jsonl'), '');

    const resumed = await runCli(['run', '--resume', 'k0', '--project', projectDir]);
    expect(resumed.code).toBe(2);
    expect(resumed.stderr).toContain(
      'run k0 was stopped before it saved any state (its folder holds no state.json, so no node ran)',
    );
    expect(resumed.stderr).toContain('artifact-ingest run GRAPH --run-id k0');

    const again = await runCli([
      'run',
      'team',
      '--project',
      projectDir,
      '--input',
      'goal=x',
      '--run-id',
      'k0',
    ]);
    expect(again.code).toBe(0);
    expect(existsSync(path.join(projectDir, '.agent/runs/k0', temp))).toBe(false);
  });

  it('prints the final state with --json, and runs/show list and describe the run', async () => {
    const projectDir = await teamProject();
    const run = await runCli([
      'run',
      'team',
      '--project',
      projectDir,
      '--input',
      'goal=x',
      '--run-id',
      'r1',
      '--ingest',
      '--json',
    ]);
    const state = JSON.parse(run.stdout) as {
      run_id: string;
      status: string;
      nodes: Record<string, { ingest?: unknown }>;
    };
    expect(state).toMatchObject({ run_id: 'r1', status: 'completed' });
    expect(state.nodes.task_api?.ingest).toMatchObject({ written: 4, skipped: 1, rejected: 0 });

    const runs = await runCli(['runs', '--project', projectDir]);
    expect(runs.stdout).toMatch(/^r1\s+team\s+completed\s+7\/7/m);
    const show = await runCli(['show', 'r1', '--project', projectDir]);
    expect(show.code).toBe(0);
    expect(show.stdout).toMatch(
      /task_api\s+\.agent\/runs\/r1\/manifests\/task_api\.json\s+docs\/tasks\/api\.md\s+4\s+1\s+0/,
    );
    const missing = await runCli(['show', 'nope', '--project', projectDir]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('nope');
  });

  it('exits 1 when a node fails, skips its dependents, and finishes on --resume once fixed', async () => {
    const projectDir = await teamProject();
    await rm(path.join(projectDir, 'replies/audit.md'));
    const failed = await runCli([
      'run',
      'team',
      '--project',
      projectDir,
      '--input',
      'goal=x',
      '--run-id',
      'r1',
    ]);
    expect(failed.code).toBe(1);
    expect(failed.stdout).toMatch(/^audit\s+failed/m);
    expect(failed.stdout).toMatch(/^final\s+skipped/m);
    expect(failed.stdout).toContain('resume:    artifact-ingest run --resume r1');

    await writeFile(path.join(projectDir, 'replies/audit.md'), '# Audit\n\nNothing to report.\n');
    const resumed = await runCli(['run', '--resume', 'r1', '--project', projectDir]);
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toMatch(/^total\s+7\/7 completed/m);
    const started = (await readEvents(projectDir, 'r1')).filter((e) => e.event === 'node.started');
    expect(started.filter((e) => e.node_id === 'plan')).toHaveLength(1);
    expect(started.filter((e) => e.node_id === 'audit')).toHaveLength(2);
  });

  it('finishes a run whose process was SIGKILLed mid-node, without re-running completed nodes', async () => {
    const tsx = createRequire(import.meta.url).resolve('tsx');
    const agentScript = fileURLToPath(new URL('./fixtures/wait-for-release.ts', import.meta.url));
    const projectDir = await tempProject({
      'graphs/three.yaml': threeNodes,
      'replies/a.md': '```txt file=a.txt\nA\n```\n',
    });
    const release = path.join(projectDir, 'release');
    const started = path.join(projectDir, 'slow-started');
    const slowCommand = JSON.stringify([process.execPath, '--import', tsx, agentScript, release, started]);
    await writeFile(
      path.join(projectDir, 'artifact-ingest.config.yaml'),
      `ingest: { enabled: true }\nagents:\n  fast: { kind: replay, dir: replies }\n  slow: { kind: command, command: ${slowCommand}, timeout_ms: 60000 }\n`,
    );
    const graph = path.join(projectDir, 'graphs/three.yaml');
    const child = spawn(
      process.execPath,
      [CLI, 'run', graph, '--project', projectDir, '--input', 'topic=t', '--run-id', 'k1'],
      {
        stdio: 'ignore',
      },
    );
    const exited = new Promise((resolve) => child.on('exit', resolve));
    await untilFile(started);
    child.kill('SIGKILL');
    await exited;
    // `show` reads what every reader does: state.json (the run's start) plus the transitions its log holds.
    const shown = await runCli(['show', 'k1', '--project', projectDir, '--json']);
    const killedState = (JSON.parse(shown.stdout) as { state: { nodes: Record<string, { status: string }> } })
      .state;
    expect(killedState.nodes).toMatchObject({
      a: { status: 'completed' },
      b: { status: 'running' },
      c: { status: 'pending' },
    });
    const listed = await runCli(['runs', '--project', projectDir]);
    expect(listed.stdout).toMatch(/^k1\s+three\s+interrupted/m);

    await mkdir(path.join(projectDir, 'release'));
    const resumed = await runCli(['run', '--resume', 'k1', '--project', projectDir]);
    expect(resumed.code).toBe(0);
    expect(await readFile(path.join(projectDir, 'workspace/b.txt'), 'utf8')).toBe('from the slow agent\n');
    expect(await readFile(path.join(projectDir, 'docs/c.md'), 'utf8')).toContain('from the slow agent');
    const events = await readEvents(projectDir, 'k1');
    const starts = (id: string) =>
      events.filter((e) => e.event === 'node.started' && e.node_id === id).length;
    expect([starts('a'), starts('b'), starts('c')]).toEqual([1, 2, 1]);
    expect(events.some((e) => e.event === 'run.lock_taken_over')).toBe(true);
  });

  it.each([
    [['team', '--ingest', '--no-ingest'], '--ingest and --no-ingest contradict'],
    [['team', '--input', 'goal'], "--input 'goal' must be KEY=VALUE"],
    [['team', '--concurrency', '0'], "--concurrency '0' must be a whole number"],
    [[], 'name a GRAPH'],
    [['nope.yaml', '--input', 'goal=x'], 'nope.yaml'],
    [['team', '--input', 'goal=x', '--agent', 'ghost'], 'no agent named "ghost"'],
  ])('exits 2 with a precise error for %j', async (args, message) => {
    const projectDir = await teamProject();
    const { code, stderr } = await runCli(['run', ...args, '--project', projectDir]);
    expect(code).toBe(2);
    expect(stderr).toContain(message);
  });

  it('exits 2 on an unknown ARTIFACT_INGEST value', async () => {
    const projectDir = await teamProject();
    const { code, stderr } = await runCli(['run', 'team', '--project', projectDir, '--input', 'goal=x'], {
      env: { ARTIFACT_INGEST: 'maybe' },
    });
    expect(code).toBe(2);
    expect(stderr).toContain('ARTIFACT_INGEST');
  });
});

describe('artifact-ingest run under faults', () => {
  const replies = fileURLToPath(new URL('../../fixtures/demo/replies/', import.meta.url));

  async function teamProject(): Promise<string> {
    const projectDir = await tempProject({ 'artifact-ingest.config.yaml': replayConfig() });
    const { cp } = await import('node:fs/promises');
    await cp(replies, path.join(projectDir, 'replies'), { recursive: true });
    return projectDir;
  }

  it('counts ingest I/O errors in their own column and warns once per node on stderr with the real cause', async ({
    skip,
  }) => {
    const projectDir = await teamProject();
    const workspace = path.join(projectDir, 'workspace');
    await mkdir(workspace);
    const mount = mountReadOnly(workspace);
    if (mount.kind === 'skipped') {
      skip(mount.skip);
      return;
    }
    let result;
    try {
      result = await runCli(['run', 'team', '--input', 'goal=x', '--run-id', 'r1', '--ingest'], {
        cwd: projectDir,
      });
    } finally {
      mount.release();
    }
    // Ingest is fail-open: the run completes, and the faults are in the table and on stderr.
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /^node\s+status\s+document\s+blocks\s+written\s+skipped\s+errors\s+rejected$/m,
    );
    expect(result.stdout).toMatch(/^task_api\s+completed\s+docs\/tasks\/api\.md\s+5\s+0\s+1\s+4\s+0$/m);
    expect(result.stdout).toMatch(/^total\s+7\/7 completed\s+7 documents\s+20\s+0\s+6\s+9\s+5$/m);
    const warnings = result.stderr.split('\n').filter((line) => line.includes('warning:'));
    expect(warnings).toHaveLength(5);
    expect(warnings).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^artifact-ingest: warning: task_api: 4 block\(s\) not written: .*\(EROFS\)$/),
      ]),
    );
    const state = JSON.parse(await readFile(path.join(projectDir, '.agent/runs/r1/state.json'), 'utf8')) as {
      nodes: Record<string, { ingest?: { skipped: number; io_errors?: number; io_error?: string } }>;
    };
    expect(state.nodes.task_api?.ingest).toMatchObject({ skipped: 5, io_errors: 4 });
    expect(state.nodes.pm?.ingest?.io_errors).toBeUndefined();
  });

  it('exits 1 with state_write_failed when .agent/ fills up, and the run resumes once there is space', async ({
    skip,
  }) => {
    const projectDir = await teamProject();
    const agentDir = path.join(projectDir, '.agent');
    await mkdir(agentDir);
    const mount = mountSmallTmpfs(agentDir, '16k');
    if (mount.kind === 'skipped') {
      skip(mount.skip);
      return;
    }
    try {
      const failed = await runCli(['run', 'team', '--input', 'goal=x', '--run-id', 'r1', '--ingest'], {
        cwd: projectDir,
      });
      expect(failed.code).toBe(1);
      expect(failed.stderr).toMatch(/^artifact-ingest: state_write_failed: .*\(ENOSPC\)$/m);
      growTmpfs(agentDir, '10m');
      const resumed = await runCli(['run', '--resume', 'r1'], { cwd: projectDir });
      expect(resumed.code).toBe(0);
      expect(resumed.stdout).toMatch(/COMPLETED/);
    } finally {
      mount.release();
    }
  });
});
