import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnCli } from '../helpers/run-cli.js';

let root: string;
let demoDir: string;
let runId: string;

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'ai-e2e-git-'));
  demoDir = path.join(root, 'demo');
  const demo = await spawnCli(['demo', '--dir', demoDir, '--json'], { cwd: root });
  expect(demo.code, demo.stderr).toBe(0);
  runId = (JSON.parse(demo.stdout) as { run_id: string }).run_id;
}, 120_000);

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('artifact-ingest export git: the binary', () => {
  it('writes the run into a new bare repository that git log --graph shows node by node, then changes nothing', async () => {
    const bare = path.join(root, 'runs.git');
    const first = await spawnCli(['export', 'git', runId, '--repo', bare, '--project', demoDir]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain(`created   swarm/run-${runId}`);
    const graph = execFileSync(
      'git',
      ['--git-dir', bare, 'log', '--graph', '--format=%an %s', `swarm/run-${runId}`],
      {
        encoding: 'utf8',
      },
    );
    expect(graph).toMatch(/^\* writer final \(writer\): wrote /m);
    expect(graph).toMatch(/^\* planner plan \(planner\): wrote /m);
    const again = await spawnCli(['export', 'git', runId, '--repo', bare, '--project', demoDir, '--json']);
    expect(again.code, again.stderr).toBe(0);
    expect((JSON.parse(again.stdout) as { changed: boolean }).changed).toBe(false);
  }, 60_000);

  it('exits 2 with git_missing when PATH has no git', async () => {
    const result = await spawnCli(
      ['export', 'git', runId, '--repo', path.join(root, 'x.git'), '--project', demoDir, '--json'],
      {
        env: { PATH: path.join(root, 'no-bin') },
      },
    );
    expect(result.code).toBe(2);
    expect(JSON.parse(result.stdout)).toMatchObject({ error: { code: 'git_missing' } });
  }, 60_000);

  it('prints its help', async () => {
    const help = await spawnCli(['export', 'git', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: artifact-ingest export git RUN_ID \[--repo DIR\] \[--json\]/);
  });
});
