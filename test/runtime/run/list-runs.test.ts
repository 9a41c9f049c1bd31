import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { listRuns, readRun } from '../../../src/runtime/run/list-runs.js';
import { RunError } from '../../../src/runtime/run/run-error.js';
import { runGraph } from '../../../src/runtime/run/run-graph.js';
import { parseNodeId, parseRunId, UnknownRunError } from '../../../src/project/index.js';
import { fileBlock, tempProject } from '../../helpers/temp-project.js';
import { runIngest } from '../../../src/ingest/index.js';
import { agentsOf, defineGraph, echoAgent, testAgent } from './fixtures/run-graph-fixtures.js';

const graph = defineGraph('listed', [
  { id: 'a', type: 'agent_task', agent: 'echo', prompt: 'a', outputPath: 'docs/{run_id}/a.md' },
  { id: 'b', type: 'write_file', after: ['a'], content: '{a.output}', outputPath: 'docs/{run_id}/b.md' },
]);
const at = (iso: string) => () => new Date(iso);

async function projectWithRuns(): Promise<string> {
  const projectDir = await tempProject({ '.agent/runs/cli-20250101T000000000Z/events.jsonl': '' });
  const ingest = { enabled: true, durability: 'none' } as const;
  await runGraph({
    projectDir,
    graph,
    inputs: {},
    agentFor: agentsOf(echoAgent()),
    runId: 'zeta',
    now: at('2025-01-01T00:00:00.000Z'),
    ingest,
  });
  const failing = testAgent('echo', () => {
    throw new Error('no');
  });
  await runGraph({
    projectDir,
    graph,
    inputs: {},
    agentFor: agentsOf(failing),
    runId: 'alpha',
    now: at('2025-01-02T00:00:00.000Z'),
  });
  await runGraph({
    projectDir,
    graph,
    inputs: {},
    agentFor: agentsOf(echoAgent()),
    runId: 'killed',
    now: at('2025-01-03T00:00:00.000Z'),
  });
  // As a SIGKILL leaves it: state says running, nobody holds the lock.
  const statePath = path.join(projectDir, '.agent/runs/killed/state.json');
  const state = JSON.parse(await readFile(statePath, 'utf8')) as {
    status: string;
    nodes: Record<string, { status: string }>;
  };
  state.status = 'running';
  state.nodes.b = { status: 'running', attempts: 1 } as never;
  await writeFile(statePath, JSON.stringify(state));
  await tempFile(projectDir, '.agent/runs/broken/state.json', '{"version": 1,');
  return projectDir;
}

async function tempFile(projectDir: string, relative: string, text: string): Promise<void> {
  await mkdir(path.dirname(path.join(projectDir, relative)), { recursive: true });
  await writeFile(path.join(projectDir, relative), text);
}

describe('listRuns', () => {
  it('lists graph runs oldest first, corrupt ones as unreadable, and skips folders without a state', async () => {
    const projectDir = await projectWithRuns();
    const runs = await listRuns(projectDir);

    expect(runs.map((run) => [run.run_id, run.status, run.interrupted])).toEqual([
      ['zeta', 'completed', false],
      ['alpha', 'failed', false],
      ['killed', 'running', true],
      ['broken', 'unreadable', false],
    ]);
    expect(runs[0]).toMatchObject({
      graph: 'listed',
      created_at: '2025-01-01T00:00:00.000Z',
      updated_at: '2025-01-01T00:00:00.000Z',
      nodes: { total: 2, completed: 2, failed: 0, skipped: 0, pending: 0, running: 0 },
    });
    expect(runs[1]?.nodes).toMatchObject({ failed: 1, skipped: 1 });
    expect(runs[3]?.error).toMatch(/^\.agent\/runs\/broken\/state\.json is not valid JSON/);
    expect(runs[3]?.nodes.total).toBe(0);
  });

  it("carries each ended run's terminal state, and none for a run without a readable terminal.json", async () => {
    const projectDir = await projectWithRuns();
    await tempFile(projectDir, '.agent/runs/killed/terminal.json', '{"state": "done",');
    const runs = await listRuns(projectDir);
    expect(runs.map((run) => [run.run_id, run.terminal])).toEqual([
      ['zeta', 'done'],
      ['alpha', 'blocked'],
      ['killed', undefined],
      ['broken', undefined],
    ]);
    const details = await readRun(projectDir, 'alpha');
    expect(details.terminal).toMatchObject({ state: 'blocked', artifact: null });
    expect(details.terminal?.reason).toContain('node a failed (agent_error)');
    expect((await readRun(projectDir, 'killed')).terminal).toBeUndefined();
  });

  it('returns nothing for a project without runs', async () => {
    expect(await listRuns(await tempProject())).toEqual([]);
  });
});

describe('readRun', () => {
  it('returns the state, node counts and each manifest summary in graph order', async () => {
    const projectDir = await projectWithRuns();
    await tempFile(projectDir, '.agent/runs/zeta/manifests/extra.json', 'not json');
    const run = await readRun(projectDir, 'zeta');

    expect(run.runDir).toBe('.agent/runs/zeta');
    expect(run.kind).toBe('graph');
    expect(run.kind === 'graph' ? run.state.status : undefined).toBe('completed');
    expect(run.interrupted).toBe(false);
    expect(run.nodes).toMatchObject({ total: 2, completed: 2 });
    expect(run.manifests).toEqual([
      {
        node_id: 'a',
        manifest_path: '.agent/runs/zeta/manifests/a.json',
        doc_path: 'docs/zeta/a.md',
        mode: 'team',
        summary: { total_blocks: 1, written: 1, skipped: 0, rejected: 0 },
      },
      {
        node_id: 'b',
        manifest_path: '.agent/runs/zeta/manifests/b.json',
        doc_path: 'docs/zeta/b.md',
        mode: 'team',
        // b's document is a's: the same block, already there.
        summary: { total_blocks: 1, written: 0, skipped: 1, rejected: 0 },
      },
      {
        node_id: 'extra',
        manifest_path: '.agent/runs/zeta/manifests/extra.json',
        error: '.agent/runs/zeta/manifests/extra.json is not valid JSON',
      },
    ]);
    expect((await readRun(projectDir, 'killed')).interrupted).toBe(true);
    expect((await readRun(projectDir, 'alpha')).manifests).toEqual([]);
  });

  it('throws a clear error for a missing run, a corrupt state and a bad id', async () => {
    const projectDir = await projectWithRuns();
    await expect(readRun(projectDir, 'nope')).rejects.toThrow(UnknownRunError);
    await expect(readRun(projectDir, 'nope')).rejects.toThrow(
      `no run "nope" in .agent/runs/; list the runs with 'artifact-ingest runs'`,
    );
    // A folder with neither a state nor an ingest's records is no run either.
    await expect(readRun(projectDir, 'cli-20250101T000000000Z')).rejects.toThrow(UnknownRunError);
    await expect(readRun(projectDir, 'broken')).rejects.toThrow(
      /^\.agent\/runs\/broken\/state\.json is not valid JSON/,
    );
    await tempFile(projectDir, '.agent/runs/odd/state.json', JSON.stringify({ version: 2 }));
    await expect(readRun(projectDir, 'odd')).rejects.toThrow(
      /^\.agent\/runs\/odd\/state\.json is not a valid run state \(version 1\): version: /,
    );
    await expect(readRun(projectDir, '../etc')).rejects.toThrow(
      `no run "../etc" in .agent/runs/; list the runs with 'artifact-ingest runs'`,
    );
  });
});

describe('runs made by an ingest --run-id', () => {
  async function projectWithIngestRun(): Promise<string> {
    const projectDir = await tempProject({
      'docs/a.md': fileBlock('ts', 'a.ts', 'a'),
      'docs/b.md': `${fileBlock('ts', 'b.ts', 'b')}\n${fileBlock('sh', '../x.sh', 'x')}`,
    });
    for (const [name, ts] of [
      ['a', '2025-02-01T00:00:00.000Z'],
      ['b', '2025-02-01T00:05:00.000Z'],
    ] as const) {
      await runIngest({
        projectDir,
        runId: parseRunId('cli-x'),
        nodeId: parseNodeId(name),
        docPath: `docs/${name}.md`,
        durability: 'none',
        now: () => new Date(ts),
      });
    }
    return projectDir;
  }

  it('lists them as ingest runs, completed, with their manifests as nodes and times from the manifests', async () => {
    const projectDir = await projectWithIngestRun();
    expect(await listRuns(projectDir)).toEqual([
      {
        run_id: 'cli-x',
        kind: 'ingest',
        status: 'completed',
        interrupted: false,
        graph: '',
        created_at: '2025-02-01T00:00:00.000Z',
        updated_at: '2025-02-01T00:05:00.000Z',
        nodes: { pending: 0, running: 0, completed: 2, failed: 0, skipped: 0, total: 2 },
      },
    ]);
  });

  it('shows them with their manifests', async () => {
    const projectDir = await projectWithIngestRun();
    const run = await readRun(projectDir, 'cli-x');
    expect(run).toMatchObject({
      kind: 'ingest',
      run_id: 'cli-x',
      status: 'completed',
      runDir: '.agent/runs/cli-x',
      updated_at: '2025-02-01T00:05:00.000Z',
      nodes: { completed: 2, total: 2 },
    });
    expect(run.manifests).toEqual([
      {
        node_id: 'a',
        manifest_path: '.agent/runs/cli-x/manifests/a.json',
        doc_path: 'docs/a.md',
        mode: 'unknown',
        summary: { total_blocks: 1, written: 1, skipped: 0, rejected: 0 },
      },
      {
        node_id: 'b',
        manifest_path: '.agent/runs/cli-x/manifests/b.json',
        doc_path: 'docs/b.md',
        mode: 'unknown',
        summary: { total_blocks: 2, written: 1, skipped: 0, rejected: 1 },
      },
    ]);
  });

  it('refuses to resume one: it has no graph state', async () => {
    const projectDir = await projectWithIngestRun();
    const resumed = runGraph({
      projectDir,
      graph,
      inputs: {},
      agentFor: agentsOf(echoAgent()),
      runId: 'cli-x',
      resume: true,
    });
    await expect(resumed).rejects.toThrow(RunError);
    await expect(resumed).rejects.toMatchObject({ code: 'not_a_graph_run' });
  });
});
