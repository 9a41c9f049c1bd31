import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { readEvents, tempProject } from '../helpers/temp-project.js';

const NODE = JSON.stringify(process.execPath);

const twoNodes = `name: pair
version: "1"
nodes:
  - { id: a, type: agent_task, agent: writer, prompt: "first", output_path: "docs/a.md" }
  - { id: b, type: agent_task, agent: writer, depends_on: [a], prompt: "second", output_path: "docs/b.md" }
`;

const slowNode = `name: slow
version: "1"
nodes:
  - { id: think, type: agent_task, agent: sleeper, prompt: "think", output_path: "docs/think.md" }
`;

// The smoke command passes while flag.txt says ok.
const smokeGraph = `name: smoky
version: "1"
nodes:
  - id: smoke
    type: command
    commands:
      - [${NODE}, -e, "process.exit(require('fs').readFileSync('flag.txt', 'utf8').trim() === 'ok' ? 0 : 1)"]
    output_path: docs/{run_id}/smoke.md
`;

const config = `agents:
  writer: { kind: replay, dir: replies }
  sleeper: { kind: command, command: [${NODE}, -e, "setTimeout(() => {}, 20000)"], timeout_ms: 60000 }
`;

async function project(files: Record<string, string> = {}): Promise<string> {
  return tempProject({
    'artifact-ingest.config.yaml': config,
    'replies/a.md': '# A\n',
    'replies/b.md': '# B\n',
    'pair.yaml': twoNodes,
    'slow.yaml': slowNode,
    'smoky.yaml': smokeGraph,
    'flag.txt': 'ok\n',
    ...files,
  });
}

async function terminalOf(projectDir: string, runId: string): Promise<Record<string, unknown>> {
  return JSON.parse(
    await readFile(path.join(projectDir, `.agent/runs/${runId}/terminal.json`), 'utf8'),
  ) as Record<string, unknown>;
}

describe('budgets and terminal states through the CLI', () => {
  it('--max-agent-calls 1 on a two-node graph ends budget_exceeded with exit 1; a resume with more ends done', async () => {
    const projectDir = await project();
    const first = await runCli(
      ['run', 'pair.yaml', '--project', projectDir, '--run-id', 'p1', '--max-agent-calls', '1'],
      {
        cwd: projectDir,
      },
    );

    expect(first.code).toBe(1);
    expect(first.stdout).toContain(
      'terminal: budget_exceeded: max_agent_calls ran out: 1 agent call made, node b was not asked',
    );
    const terminal = await terminalOf(projectDir, 'p1');
    expect(terminal).toMatchObject({ state: 'budget_exceeded', artifact: null });
    const state = JSON.parse(await readFile(path.join(projectDir, '.agent/runs/p1/state.json'), 'utf8')) as {
      nodes: Record<string, { status: string; error?: { code: string } }>;
      budgets: Record<string, unknown>;
    };
    expect(state.nodes.a?.status).toBe('completed');
    expect(state.nodes.b).toMatchObject({ status: 'failed', error: { code: 'budget_exceeded' } });
    expect(state.budgets).toMatchObject({ max_agent_calls: 1, agent_calls: 1, exceeded: 'max_agent_calls' });
    const events = await readEvents(projectDir, 'p1');
    expect(events.at(-1)).toMatchObject({
      event: 'run.terminal',
      state: 'budget_exceeded',
      budgets: { agent_calls: 1, max_agent_calls: 1 },
    });

    const runs = await runCli(['runs', '--project', projectDir]);
    expect(runs.stdout).toMatch(/^p1\s+pair\s+failed\s+1\/2\s+budget_exceeded\s/m);
    const show = await runCli(['show', 'p1', '--project', projectDir]);
    expect(show.stdout).toContain('terminal: budget_exceeded: max_agent_calls ran out');
    const showJson = JSON.parse((await runCli(['show', 'p1', '--project', projectDir, '--json'])).stdout) as {
      terminal: unknown;
    };
    expect(showJson.terminal).toEqual(terminal);
    const replay = await runCli(['replay', 'p1', '--project', projectDir]);
    expect(replay.code).toBe(0);
    expect(replay.stdout).toContain('terminal: budget_exceeded');
    const replayJson = JSON.parse(
      (await runCli(['replay', 'p1', '--project', projectDir, '--json'])).stdout,
    ) as {
      terminal: unknown;
    };
    expect(replayJson.terminal).toEqual(terminal);

    // The count goes on across the resume: one call made, one more allowed.
    const resumed = await runCli(
      ['run', '--resume', 'p1', '--project', projectDir, '--max-agent-calls', '2'],
      {
        cwd: projectDir,
      },
    );
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toContain('terminal: done');
    expect(await terminalOf(projectDir, 'p1')).toMatchObject({ state: 'done' });
    const after = await readEvents(projectDir, 'p1');
    expect(after.filter((event) => event.event === 'run.terminal').map((event) => event.state)).toEqual([
      'budget_exceeded',
      'done',
    ]);
  });

  it('a tiny --max-minutes stops a slow command agent: budget_exceeded, exit 1, not interrupted', async () => {
    const projectDir = await project();
    const started = Date.now();
    const result = await runCli(
      ['run', 'slow.yaml', '--project', projectDir, '--run-id', 's1', '--max-minutes', '0.002'],
      {
        cwd: projectDir,
      },
    );
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('terminal: budget_exceeded: max_minutes ran out');
    expect(await terminalOf(projectDir, 's1')).toMatchObject({ state: 'budget_exceeded' });
    const state = JSON.parse(await readFile(path.join(projectDir, '.agent/runs/s1/state.json'), 'utf8')) as {
      nodes: Record<string, { status: string; error?: { code: string } }>;
    };
    expect(state.nodes.think).toMatchObject({ status: 'failed', error: { code: 'budget_exceeded' } });
  });

  it('a smoke test that passed in run 1 and fails in run 2 is a regression (exit 1); a third failing run is blocked', async () => {
    const projectDir = await project();
    const run = (runId: string) =>
      runCli(['run', 'smoky.yaml', '--project', projectDir, '--run-id', runId], { cwd: projectDir });

    const first = await run('r1');
    expect(first.code).toBe(0);
    expect(await terminalOf(projectDir, 'r1')).toMatchObject({
      state: 'done',
      artifact: '.agent/artifacts/r1/smoke_test_result.json',
    });

    await writeFile(path.join(projectDir, 'flag.txt'), 'broken\n');
    const second = await run('r2');
    expect(second.code).toBe(1);
    expect(second.stdout).toContain(
      'terminal: regression: 1 smoke command failed where run r1 of graph smoky passed them all',
    );
    expect(second.stdout).toContain('read:     .agent/artifacts/r2/smoke_test_result.json');
    expect(await terminalOf(projectDir, 'r2')).toMatchObject({
      state: 'regression',
      artifact: '.agent/artifacts/r2/smoke_test_result.json',
    });

    // The previous run with a smoke result failed too: no regression, the failing smoke test blocks.
    const third = await run('r3');
    expect(third.code).toBe(1);
    expect(await terminalOf(projectDir, 'r3')).toMatchObject({
      state: 'blocked',
      artifact: '.agent/artifacts/r3/smoke_test_result.json',
    });
    const runs = await runCli(['runs', '--project', projectDir]);
    expect(runs.stdout).toMatch(/^r1\s.*\sdone\s/m);
    expect(runs.stdout).toMatch(/^r2\s.*\sregression\s/m);
    expect(runs.stdout).toMatch(/^r3\s.*\sblocked\s/m);
  });

  it.each([
    ['--max-minutes', '0', "--max-minutes '0' must be a number of minutes above 0"],
    ['--max-minutes', 'soon', "--max-minutes 'soon' must be a number of minutes above 0"],
    ['--max-agent-calls', '1.5', "--max-agent-calls '1.5' must be a whole number of 1 or more"],
    ['--max-agent-calls', '0', "--max-agent-calls '0' must be a whole number of 1 or more"],
  ])('refuses %s %s with a usage error (exit 2)', async (flag, value, message) => {
    const projectDir = await project();
    const result = await runCli(['run', 'pair.yaml', '--project', projectDir, flag, value], {
      cwd: projectDir,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
  });
});
