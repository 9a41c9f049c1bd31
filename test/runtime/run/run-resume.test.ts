import { appendFile, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { bundleRun, importBundle } from '../../../src/artifacts/index.js';
import { AgentError } from '../../../src/runtime/agents/agent.js';
import { RunError } from '../../../src/runtime/run/run-error.js';
import { runGraph } from '../../../src/runtime/run/run-graph.js';
import type { RunState } from '../../../src/runs/index.js';
import { parseRunId, UnknownRunError } from '../../../src/project/index.js';
import { readRunSource } from '../../../src/report/model/read-run-source.js';
import { listRuns, readRun } from '../../../src/runtime/run/list-runs.js';
import { readEvents, tempProject } from '../../helpers/temp-project.js';
import {
  agentsOf,
  blockReply,
  defineGraph,
  exists,
  markerAgent,
  markerCounts,
  readState,
  readStateFile,
  readTree,
  resumeGraph,
  spawnRunChild,
  testAgent,
  waitFor,
} from './fixtures/run-graph-fixtures.js';

const inputs = { goal: 'a todo app' };
const ingest = { enabled: true, durability: 'none' } as const;

const statusesOf = (state: RunState) =>
  Object.fromEntries(Object.entries(state.nodes).map(([id, node]) => [id, node.status]));

/** A state without its clock readings, for comparing two runs. */
const timeless = (state: RunState) =>
  Object.fromEntries(
    Object.entries(state.nodes).map(([id, node]) => {
      const rest: Record<string, unknown> = { ...node };
      delete rest.started_at;
      delete rest.finished_at;
      delete rest.attempts;
      return [id, rest];
    }),
  );

async function manifestsWithoutTs(projectDir: string, runId: string): Promise<Record<string, unknown>> {
  const tree = await readTree(path.join(projectDir, '.agent/runs', runId, 'manifests'));
  return Object.fromEntries(
    Object.entries(tree).map(([file, base64]) => {
      const manifest = JSON.parse(Buffer.from(base64, 'base64').toString('utf8')) as Record<string, unknown>;
      delete manifest.ts;
      return [file, manifest];
    }),
  );
}

describe('resuming a run', () => {
  it('after SIGKILL keeps completed nodes, reruns the killed one and ends as an uninterrupted run does', async () => {
    const projectDir = await tempProject();
    const scratch = await tempProject();
    const markerDir = path.join(scratch, 'markers');
    const releaseFile = path.join(scratch, 'never-created');
    const { child, exited } = spawnRunChild({
      projectDir,
      runId: 'killed',
      markerDir,
      graph: 'resume',
      holdNode: 'n3',
      releaseFile,
      ingest: true,
    });
    try {
      await waitFor('n1, n2 and n5 completed and n3 running in the child', async () => {
        if (child.exitCode !== null) throw new Error(`child exited early: ${(await exited).stderr}`);
        try {
          const state = await readState(projectDir, 'killed');
          return (
            state.nodes.n1?.status === 'completed' &&
            state.nodes.n2?.status === 'completed' &&
            state.nodes.n5?.status === 'completed' &&
            state.nodes.n3?.status === 'running' &&
            // The agent was asked: "running" is logged just before the call, and the kill must come after it.
            (await markerCounts(markerDir)).n3 === 1
          );
        } catch {
          return false;
        }
      });
      // While the child lives, a second runner on the same run is refused.
      const second = runGraph({
        projectDir,
        graph: resumeGraph(),
        inputs: {},
        agentFor: agentsOf(markerAgent('worker', { markerDir })),
        runId: 'killed',
        resume: true,
      });
      await expect(second).rejects.toThrow(RunError);
      await expect(second).rejects.toThrow(`run killed is already running (pid ${String(child.pid)}`);
      child.kill('SIGKILL');
      expect((await exited).signal).toBe('SIGKILL');
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }

    const lock = JSON.parse(
      await readFile(path.join(projectDir, '.agent/runs/killed/lock'), 'utf8'),
    ) as Record<string, unknown>;
    expect(lock).toMatchObject({ pid: child.pid, hostname: hostname() });
    const killedState = await readState(projectDir, 'killed');
    expect(killedState.status).toBe('running');
    expect(statusesOf(killedState)).toEqual({
      n1: 'completed',
      n2: 'completed',
      n3: 'running',
      n4: 'pending',
      n5: 'completed',
    });

    const resumed = await runGraph({
      projectDir,
      graph: resumeGraph(),
      inputs: {},
      agentFor: agentsOf(markerAgent('worker', { markerDir })),
      runId: 'killed',
      resume: true,
      ingest,
    });

    expect(resumed.status).toBe('completed');
    expect(await markerCounts(markerDir)).toEqual({ n1: 1, n2: 1, n3: 2, n5: 1 });
    expect(
      Object.fromEntries(Object.entries(resumed.state.nodes).map(([id, node]) => [id, node.attempts])),
    ).toEqual({
      n1: 1,
      n2: 1,
      n3: 2,
      n4: 1,
      n5: 1,
    });
    expect(resumed.state.created_at).toBe(killedState.created_at);
    expect(resumed.state.inputs).toEqual(inputs);
    expect(await exists(path.join(projectDir, '.agent/runs/killed/lock'))).toBe(false);
    const events = await readEvents(projectDir, 'killed');
    const restart = events.findIndex((event) => event.event === 'run.started' && event.resumed === true);
    expect(restart).toBeGreaterThan(0);
    expect(events[restart + 1]).toMatchObject({
      level: 'WARNING',
      event: 'run.lock_taken_over',
      previous_pid: child.pid,
      previous_hostname: hostname(),
    });
    expect(
      events
        .slice(restart)
        .filter((event) => event.event === 'node.started')
        .map((event) => event.node_id),
    ).toEqual(['n3', 'n4']);
    expect(events.every((event) => event.run_id === 'killed')).toBe(true);

    // The same graph, uninterrupted, in another project with the same run id.
    const baselineDir = await tempProject();
    const baseline = await runGraph({
      projectDir: baselineDir,
      graph: resumeGraph(),
      inputs,
      agentFor: agentsOf(markerAgent('worker', { markerDir: path.join(scratch, 'baseline-markers') })),
      runId: 'killed',
      ingest,
    });
    expect(statusesOf(resumed.state)).toEqual(statusesOf(baseline.state));
    expect(timeless(resumed.state)).toEqual(timeless(baseline.state));
    for (const folder of ['docs', 'audits', 'workspace']) {
      const tree = await readTree(path.join(projectDir, folder));
      expect(Object.keys(tree).length).toBeGreaterThan(0);
      expect(tree).toEqual(await readTree(path.join(baselineDir, folder)));
    }
    expect(await manifestsWithoutTs(projectDir, 'killed')).toEqual(
      await manifestsWithoutTs(baselineDir, 'killed'),
    );
  });

  it('after SIGKILL, show, runs, the report and resume see every transition the log holds, state.json being older', async () => {
    const projectDir = await tempProject();
    const scratch = await tempProject();
    const markerDir = path.join(scratch, 'markers');
    const { child, exited } = spawnRunChild({
      projectDir,
      runId: 'logged',
      markerDir,
      graph: 'resume',
      holdNode: 'n3',
      releaseFile: path.join(scratch, 'never-created'),
      ingest: false,
    });
    try {
      await waitFor('n3 running after n1, n2 and n5 completed', async () => {
        if (child.exitCode !== null) throw new Error(`child exited early: ${(await exited).stderr}`);
        try {
          const state = await readState(projectDir, 'logged');
          return (
            ['n1', 'n2', 'n5'].every((id) => state.nodes[id]?.status === 'completed') &&
            state.nodes.n3?.status === 'running' &&
            (await markerCounts(markerDir)).n3 === 1
          );
        } catch {
          return false;
        }
      });
      child.kill('SIGKILL');
      expect((await exited).signal).toBe('SIGKILL');
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
    // state.json is the compaction of the run's start: every transition since lives in the log only.
    expect(statusesOf(await readStateFile(projectDir, 'logged'))).toEqual({
      n1: 'pending',
      n2: 'pending',
      n3: 'pending',
      n4: 'pending',
      n5: 'pending',
    });
    // A kill -9 in the middle of an append leaves a torn last line: it is ignored.
    await appendFile(
      path.join(projectDir, '.agent/runs/logged/transitions.jsonl'),
      '{"seq":99,"at":"2025-06',
    );
    const expected = { n1: 'completed', n2: 'completed', n3: 'running', n4: 'pending', n5: 'completed' };
    const details = await readRun(projectDir, 'logged');
    expect(details.kind === 'graph' && statusesOf(details.state)).toEqual(expected);
    expect(details).toMatchObject({ interrupted: true, nodes: { completed: 3, running: 1, pending: 1 } });
    expect((await listRuns(projectDir)).find((run) => run.run_id === 'logged')).toMatchObject({
      status: 'running',
      interrupted: true,
      nodes: { completed: 3, running: 1 },
    });
    const source = await readRunSource(projectDir, parseRunId('logged'));
    expect(source.kind === 'graph' && source.state !== null && statusesOf(source.state)).toEqual(expected);
    // The killed run travels with its log: a bundle carries transitions.jsonl, and the importer sees the same.
    const bundle = path.join(scratch, 'logged.tar.gz');
    await bundleRun(projectDir, 'logged', bundle);
    const elsewhere = await tempProject();
    await importBundle(elsewhere, bundle);
    const imported = await readRun(elsewhere, 'logged');
    expect(imported.kind === 'graph' && statusesOf(imported.state)).toEqual(expected);

    const resumed = await runGraph({
      projectDir,
      graph: resumeGraph(),
      inputs: {},
      agentFor: agentsOf(markerAgent('worker', { markerDir })),
      runId: 'logged',
      resume: true,
    });
    expect(resumed.status).toBe('completed');
    // Completed nodes the log alone recorded are never asked again.
    expect(await markerCounts(markerDir)).toEqual({ n1: 1, n2: 1, n3: 2, n5: 1 });
    expect(await readStateFile(projectDir, 'logged')).toEqual(resumed.state);
  });

  it('reruns failed and skipped nodes with the inputs the run started with', async () => {
    const projectDir = await tempProject();
    const calls: string[] = [];
    let failN3 = true;
    const worker = testAgent('worker', (request) => {
      calls.push(request.nodeId);
      if (request.nodeId === 'n3' && failN3) throw new AgentError('timeout', 'n3 took too long');
      return blockReply(request.nodeId, request.prompt);
    });
    const first = await runGraph({
      projectDir,
      graph: resumeGraph(),
      inputs,
      agentFor: agentsOf(worker),
      runId: 'f1',
    });
    expect(statusesOf(first.state)).toEqual({
      n1: 'completed',
      n2: 'completed',
      n3: 'failed',
      n4: 'skipped',
      n5: 'completed',
    });

    failN3 = false;
    calls.length = 0;
    const resumed = await runGraph({
      projectDir,
      graph: resumeGraph(),
      inputs: {},
      agentFor: agentsOf(worker),
      runId: 'f1',
      resume: true,
    });
    expect(resumed.status).toBe('completed');
    expect(calls).toEqual(['n3']);
    expect(resumed.state.nodes.n3).toMatchObject({ status: 'completed', attempts: 2 });
    expect(resumed.state.nodes.n3?.error).toBeUndefined();
    expect(resumed.state.nodes.n4).toMatchObject({ status: 'completed', attempts: 1 });
    const n2 = await readFile(path.join(projectDir, 'docs/n2_f1.md'), 'utf8');
    expect(await readFile(path.join(projectDir, 'docs/tasks/n3.md'), 'utf8')).toBe(
      blockReply('n3', `Build from:\n${n2}`),
    );
  });

  it('reruns a completed node whose document is missing or changed, and what depends on it, saying why', async () => {
    const projectDir = await tempProject();
    const calls: string[] = [];
    const worker = testAgent('worker', (request) => {
      calls.push(request.nodeId);
      return blockReply(request.nodeId, request.prompt);
    });
    await runGraph({ projectDir, graph: resumeGraph(), inputs, agentFor: agentsOf(worker), runId: 'd1' });
    const n4Before = await readFile(path.join(projectDir, 'docs/n4.md'));
    await rm(path.join(projectDir, 'docs/tasks/n3.md'));
    await writeFile(path.join(projectDir, 'audits/n5.md'), 'edited by hand\n');
    calls.length = 0;

    const resumed = await runGraph({
      projectDir,
      graph: resumeGraph(),
      inputs: {},
      agentFor: agentsOf(worker),
      runId: 'd1',
      resume: true,
    });

    expect(resumed.status).toBe('completed');
    expect(calls.sort()).toEqual(['n3', 'n5']);
    expect(resumed.state.nodes.n4?.attempts).toBe(2);
    expect(resumed.state.nodes.n1?.attempts).toBe(1);
    expect(await readFile(path.join(projectDir, 'docs/n4.md'))).toEqual(n4Before);
    expect(await readFile(path.join(projectDir, 'audits/n5.md'), 'utf8')).not.toBe('edited by hand\n');
    const reruns = (await readEvents(projectDir, 'd1')).filter((event) => event.event === 'node.rerun');
    expect(reruns.map((event) => [event.node_id, event.reason, event.level])).toEqual([
      ['n3', 'document_missing', 'WARNING'],
      ['n4', 'dependency_rerun', 'WARNING'],
      ['n5', 'document_changed', 'WARNING'],
    ]);
  });

  it.each([
    ['its recorded output_path edited to lead outside the project', 'path'],
    ['a symlink to an outside file with the same bytes in place of its document', 'symlink'],
  ])('reruns a completed node with %s, never reading the outside file as its document', async (_, kind) => {
    const projectDir = await tempProject();
    const outsideDir = await tempProject();
    const worker = testAgent('worker', (request) => blockReply(request.nodeId, request.prompt));
    await runGraph({ projectDir, graph: resumeGraph(), inputs, agentFor: agentsOf(worker), runId: 'd2' });
    const document = path.join(projectDir, 'docs/tasks/n3.md');
    // The outside file holds the node's very document plus nothing else, so only its place can give it away.
    const outsideFile = path.join(outsideDir, 'secret.md');
    await writeFile(outsideFile, await readFile(document));
    const outsideBefore = await readFile(outsideFile);
    if (kind === 'symlink') {
      await rm(document);
      await symlink(outsideFile, document);
    } else {
      const stateFile = path.join(projectDir, '.agent/runs/d2/state.json');
      const state = JSON.parse(await readFile(stateFile, 'utf8')) as RunState;
      const n3 = state.nodes.n3 as { output_path?: string };
      n3.output_path = path.relative(projectDir, outsideFile);
      await writeFile(stateFile, JSON.stringify(state));
      await rm(path.join(projectDir, '.agent/runs/d2/transitions.jsonl'), { force: true });
      await rm(document);
    }

    const resumed = await runGraph({
      projectDir,
      graph: resumeGraph(),
      inputs: {},
      agentFor: agentsOf(worker),
      runId: 'd2',
      resume: true,
    });

    const reruns = (await readEvents(projectDir, 'd2')).filter((event) => event.event === 'node.rerun');
    expect(reruns.map((event) => [event.node_id, event.reason])).toContainEqual(['n3', 'document_missing']);
    expect(await readFile(outsideFile)).toEqual(outsideBefore);
    if (kind === 'path') {
      expect(resumed.status).toBe('completed');
      expect(resumed.state.nodes.n3?.output_path).toBe('docs/tasks/n3.md');
    } else {
      // The writer does not write through the symlink either: the node fails, saying why.
      expect(resumed.state.nodes.n3).toMatchObject({ status: 'failed' });
      expect(JSON.stringify(resumed.state.nodes.n3)).toMatch(/symlink|symbolic link/);
    }
  });

  it('refuses a resume when the graph changed, the inputs differ or the run does not exist', async () => {
    const projectDir = await tempProject();
    const graph = defineGraph(
      'pinned',
      [{ id: 'a', type: 'write_file', content: '{goal}', outputPath: 'docs/a.md' }],
      {
        inputs: ['goal'],
      },
    );
    await runGraph({ projectDir, graph, inputs, agentFor: agentsOf(), runId: 'p1' });
    const eventsBefore = await readFile(path.join(projectDir, '.agent/runs/p1/events.jsonl'));
    const changed = defineGraph(
      'pinned',
      [{ id: 'a', type: 'write_file', content: '{goal}!', outputPath: 'docs/a.md' }],
      {
        inputs: ['goal'],
      },
    );
    const base = { projectDir, agentFor: agentsOf(), resume: true } as const;

    await expect(runGraph({ ...base, graph: changed, inputs: {}, runId: 'p1' })).rejects.toThrow(
      /^graph definition changed since run p1 started; start a new run/,
    );
    await expect(runGraph({ ...base, graph, inputs: { goal: 'other' }, runId: 'p1' })).rejects.toThrow(
      /run p1 was started with other inputs \(goal differ\)/,
    );
    const missing = runGraph({ ...base, graph, inputs: {}, runId: 'nope' });
    await expect(missing).rejects.toThrow(UnknownRunError);
    await expect(missing).rejects.toMatchObject({ code: 'unknown_run' });
    await expect(missing).rejects.toThrow(
      `no run "nope" in .agent/runs/; list the runs with 'artifact-ingest runs'`,
    );
    expect(await readFile(path.join(projectDir, '.agent/runs/p1/events.jsonl'))).toEqual(eventsBefore);
    expect(await exists(path.join(projectDir, '.agent/runs/nope'))).toBe(false);

    const same = await runGraph({ ...base, graph, inputs, runId: 'p1' });
    expect(same.status).toBe('completed');
  });

  it('refuses a resume from a corrupt state.json, naming the file', async () => {
    const projectDir = await tempProject({ '.agent/runs/c1/state.json': '{"version": 1, "run_id": ' });
    const graph = defineGraph('c', [{ id: 'a', type: 'write_file', content: 'x', outputPath: 'docs/a.md' }]);
    await expect(
      runGraph({ projectDir, graph, inputs: {}, agentFor: agentsOf(), runId: 'c1', resume: true }),
    ).rejects.toThrow(/^.agent\/runs\/c1\/state.json is not valid JSON/);
  });
});
