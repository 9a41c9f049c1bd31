import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, spawnCli } from '../helpers/run-cli.js';
import { tempProject } from '../helpers/temp-project.js';

// Every run summary carries the host that created the run (spec storage.md Part 2), so a fleet view shows
// where each run ran; runs recorded before that, and ingest runs, have none.

const HOST = 'ARTIFACT_INGEST_HOST';
const solo = `name: solo
version: "1"
description: one document
nodes:
  - { id: w, type: write_file, content: "# Hello\\n", output_path: "docs/{run_id}.md" }
`;

async function hostedProject(): Promise<string> {
  const projectDir = await tempProject({
    'graphs/solo.yaml': solo,
    'docs/notes.md': '# Notes\n\n```txt file=notes.txt\nhi\n```\n',
  });
  const graph = path.join(projectDir, 'graphs/solo.yaml');
  const run = (runId: string, host: string) =>
    runCli(['run', graph, '--project', projectDir, '--run-id', runId], { env: { [HOST]: host } });
  // The override through the real binary: the CLI hands the process environment to the run.
  const spawned = await spawnCli(['run', graph, '--project', projectDir, '--run-id', 'r1'], {
    env: { [HOST]: 'ci-runner-7' },
  });
  expect(spawned.code, spawned.stderr).toBe(0);
  expect((await run('r2', '')).code).toBe(0);
  expect((await run('old', 'laptop')).code).toBe(0);
  // As a run recorded before runs kept their host left its state.json.
  const oldState = path.join(projectDir, '.agent/runs/old/state.json');
  const state = JSON.parse(await readFile(oldState, 'utf8')) as Record<string, unknown>;
  delete state.host;
  await writeFile(oldState, `${JSON.stringify(state, null, 2)}\n`);
  const started = await runCli(
    [
      'workflow',
      'start',
      'chain_of_thought',
      '--input',
      'problem=p',
      '--run-id',
      'w1',
      '--project',
      projectDir,
    ],
    { env: { [HOST]: 'agent-box' } },
  );
  expect(started.code, started.stderr).toBe(0);
  const ingested = await runCli(['ingest', 'docs/notes.md', '--run-id', 'i1', '--project', projectDir]);
  expect(ingested.code, ingested.stderr).toBe(0);
  return projectDir;
}

describe('the host in run summaries', () => {
  it('runs --json, show --json and the runs table show each run with its host', async () => {
    const projectDir = await hostedProject();

    const listed = await runCli(['runs', '--json', '--project', projectDir]);
    expect(listed.code).toBe(0);
    const runs = JSON.parse(listed.stdout) as Record<string, unknown>[];
    const hostOf = Object.fromEntries(runs.map((run) => [String(run['run_id']), run['host']] as const));
    expect(hostOf).toEqual({
      r1: 'ci-runner-7',
      r2: hostname(),
      old: undefined,
      w1: 'agent-box',
      i1: undefined,
    });
    // Absent, not null, as `terminal` and `error` are when a run does not have them.
    expect(
      runs
        .filter((run) => 'host' in run)
        .map((run) => run['run_id'])
        .sort(),
    ).toEqual(['r1', 'r2', 'w1']);

    const shown = JSON.parse((await runCli(['show', 'r1', '--json', '--project', projectDir])).stdout) as {
      host?: string;
      state: { host?: string };
    };
    expect(shown.host).toBe('ci-runner-7');
    expect(shown.state.host).toBe('ci-runner-7');
    const shownOld = JSON.parse(
      (await runCli(['show', 'old', '--json', '--project', projectDir])).stdout,
    ) as object;
    expect(shownOld).not.toHaveProperty('host');
    const shownIngest = JSON.parse(
      (await runCli(['show', 'i1', '--json', '--project', projectDir])).stdout,
    ) as object;
    expect(shownIngest).not.toHaveProperty('host');

    const table = (await runCli(['runs', '--project', projectDir])).stdout;
    expect(table).toMatch(/^run\s+graph\s+status\s+nodes\s+terminal\s+updated\s+host$/m);
    expect(table).toMatch(/^r1\s+solo\s+completed\s+1\/1\s+done\s+\S+\s+ci-runner-7$/m);
    expect(table).toMatch(/^old\s+solo\s+completed\s+1\/1\s+done\s+\S+\s+-$/m);
    expect(table).toMatch(
      /^w1\s+chain_of_thought \(workflow\)\s+running\s+\S+ steps\s+-\s+\S+\s+agent-box$/m,
    );
    expect(table).toMatch(/^i1\s+\(ingest\)\s+completed\s+1\/1\s+-\s+\S+\s+-$/m);
  });

  it('refuses a run whose ARTIFACT_INGEST_HOST is not a host name, exit 2, writing nothing', async () => {
    const projectDir = await tempProject({ 'graphs/solo.yaml': solo });
    const refused = await spawnCli(
      ['run', path.join(projectDir, 'graphs/solo.yaml'), '--project', projectDir, '--run-id', 'r9'],
      { env: { [HOST]: 'h'.repeat(300) } },
    );
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      'ARTIFACT_INGEST_HOST: is 300 characters long, over the 255 a host name may have; set it to a name for this machine',
    );
    expect(existsSync(path.join(projectDir, '.agent'))).toBe(false);

    const workflow = await runCli(
      [
        'workflow',
        'start',
        'chain_of_thought',
        '--input',
        'problem=p',
        '--run-id',
        'w9',
        '--project',
        projectDir,
      ],
      { env: { [HOST]: 'tab\there' } },
    );
    expect(workflow.code).toBe(2);
    expect(workflow.stderr).toContain(
      'ARTIFACT_INGEST_HOST: holds a control or invisible character (U+0009, character 4)',
    );
    expect(existsSync(path.join(projectDir, '.agent'))).toBe(false);
  });
});
