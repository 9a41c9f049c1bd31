import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/config/index.js';
import { AgentError } from '../../../src/runtime/agents/agent.js';
import { defaultRunId } from '../../../src/runtime/run/default-run-id.js';
import { RunError } from '../../../src/runtime/run/run-error.js';
import { runGraph } from '../../../src/runtime/run/run-graph.js';
import { resolveRunState, runStateSchema } from '../../../src/runtime/run/state/run-state.js';
import type { RunProgress } from '../../../src/runtime/run/run-types.js';
import type { RunState } from '../../../src/runs/index.js';
import { readEvents, tempProject } from '../../helpers/temp-project.js';
import {
  agentsOf,
  blockReply,
  defineGraph,
  echoAgent,
  exists,
  readState,
  sleep,
  testAgent,
} from './fixtures/run-graph-fixtures.js';

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

describe('runGraph', () => {
  it('runs nodes in dependency order and passes {node.output} on to dependents', async () => {
    const projectDir = await tempProject();
    const prompts: Record<string, string> = {};
    const agent = testAgent('writer', (request) => {
      prompts[request.nodeId] = request.prompt;
      return blockReply(request.nodeId, request.prompt);
    });
    const graph = defineGraph(
      'flow',
      [
        {
          id: 'plan',
          type: 'agent_task',
          agent: 'writer',
          prompt: 'Plan {goal} ({run_id})',
          outputPath: 'docs/plan_{run_id}.md',
        },
        {
          id: 'todo',
          type: 'write_file',
          after: ['plan'],
          content: 'TODO\n{plan.output}',
          outputPath: 'docs/TODO.md',
        },
        {
          id: 'build',
          type: 'agent_task',
          agent: 'writer',
          after: ['todo'],
          prompt: 'Do {todo.output} for {goal}',
          outputPath: 'docs/tasks/build.md',
        },
      ],
      { inputs: ['goal'] },
    );

    const result = await runGraph({
      projectDir,
      graph,
      inputs: { goal: 'a CLI' },
      agentFor: agentsOf(agent),
      runId: 'r1',
    });

    expect(result).toMatchObject({ runId: 'r1', status: 'completed', runDir: '.agent/runs/r1' });
    const plan = await readFile(path.join(projectDir, 'docs/plan_r1.md'), 'utf8');
    expect(plan).toBe(blockReply('plan', 'Plan a CLI (r1)'));
    const todo = await readFile(path.join(projectDir, 'docs/TODO.md'), 'utf8');
    expect(todo).toBe(`TODO\n${plan}`);
    expect(prompts.build).toBe(`Do ${todo} for a CLI`);
    const state = await readState(projectDir, 'r1');
    expect(state).toEqual(result.state);
    expect(Object.keys(state.nodes)).toEqual(['plan', 'todo', 'build']);
    expect(state.nodes.plan).toMatchObject({
      status: 'completed',
      attempts: 1,
      agent: 'writer',
      output_path: 'docs/plan_r1.md',
      output_sha256: sha256(plan),
      prompt_sha256: sha256('Plan a CLI (r1)'),
    });
    expect(state.nodes.todo).toMatchObject({
      status: 'completed',
      output_path: 'docs/TODO.md',
      output_sha256: sha256(todo),
    });
    expect(state.nodes.todo?.prompt_sha256).toBeUndefined();
    expect(state).toMatchObject({
      status: 'completed',
      inputs: { goal: 'a CLI' },
      ingest_enabled: false,
      mode: 'team',
    });
  });

  it('runs ready nodes concurrently up to the limit, starting them in graph order', async () => {
    const projectDir = await tempProject();
    let active = 0;
    let maxActive = 0;
    const started: string[] = [];
    const slow = testAgent('slow', async (request) => {
      started.push(request.nodeId);
      active += 1;
      maxActive = Math.max(maxActive, active);
      await sleep(60);
      active -= 1;
      return `# ${request.nodeId}\n`;
    });
    const ids = ['a', 'b', 'c', 'd', 'e', 'f'];
    const graph = defineGraph('wide', [
      ...ids.map((id) => ({
        id,
        type: 'agent_task' as const,
        agent: 'slow',
        prompt: id,
        outputPath: `docs/${id}.md`,
      })),
      { id: 'join', type: 'write_file', after: ids, content: 'all done', outputPath: 'docs/join.md' },
    ]);

    const two = await runGraph({ projectDir, graph, inputs: {}, agentFor: agentsOf(slow), runId: 'two' });
    expect(two.status).toBe('completed');
    expect(maxActive).toBe(2);
    expect(started).toEqual(ids);

    maxActive = 0;
    started.length = 0;
    await runGraph({
      projectDir,
      graph,
      inputs: {},
      agentFor: agentsOf(slow),
      runId: 'three',
      concurrency: 3,
    });
    expect(maxActive).toBe(3);

    maxActive = 0;
    await runGraph({ projectDir, graph, inputs: {}, agentFor: agentsOf(slow), runId: 'one', concurrency: 1 });
    expect(maxActive).toBe(1);
  });

  it('skips the dependents of a failed node, finishes the independent branch and fails the run', async () => {
    const projectDir = await tempProject();
    const agent = testAgent('mixed', (request) => {
      if (request.nodeId === 'broken') throw new AgentError('exit_status', 'the model exited with status 2');
      return blockReply(request.nodeId, request.prompt);
    });
    const graph = defineGraph('branches', [
      { id: 'root', type: 'agent_task', agent: 'mixed', prompt: 'root', outputPath: 'docs/root.md' },
      {
        id: 'broken',
        type: 'agent_task',
        agent: 'mixed',
        after: ['root'],
        prompt: 'x',
        outputPath: 'docs/broken.md',
      },
      {
        id: 'child',
        type: 'write_file',
        after: ['broken'],
        content: '{broken.output}',
        outputPath: 'docs/child.md',
      },
      {
        id: 'grandchild',
        type: 'write_file',
        after: ['child'],
        content: 'z',
        outputPath: 'docs/grandchild.md',
      },
      {
        id: 'side',
        type: 'agent_task',
        agent: 'mixed',
        after: ['root'],
        prompt: 'side',
        outputPath: 'docs/side.md',
      },
      {
        id: 'side2',
        type: 'write_file',
        after: ['side'],
        content: '{side.output}',
        outputPath: 'docs/side2.md',
      },
    ]);

    const result = await runGraph({ projectDir, graph, inputs: {}, agentFor: agentsOf(agent), runId: 'b1' });

    expect(result.status).toBe('failed');
    const statuses = Object.fromEntries(
      Object.entries(result.state.nodes).map(([id, node]) => [id, node.status]),
    );
    expect(statuses).toEqual({
      root: 'completed',
      broken: 'failed',
      child: 'skipped',
      grandchild: 'skipped',
      side: 'completed',
      side2: 'completed',
    });
    expect(result.state.nodes.broken?.error).toEqual({
      code: 'exit_status',
      message: 'the model exited with status 2',
    });
    expect(result.state.nodes.child?.error?.code).toBe('dependency_failed');
    expect(await exists(path.join(projectDir, 'docs/broken.md'))).toBe(false);
    expect(await exists(path.join(projectDir, 'docs/side2.md'))).toBe(true);

    const events = await readEvents(projectDir, 'b1');
    expect(events.find((event) => event.event === 'node.failed')).toMatchObject({
      level: 'ERROR',
      node_id: 'broken',
      code: 'exit_status',
      message: 'the model exited with status 2',
    });
    expect(events.filter((event) => event.event === 'node.skipped').map((event) => event.node_id)).toEqual([
      'child',
      'grandchild',
    ]);
    // A failure outside any contract ends the run blocked, with the failure as its reason.
    expect(events.at(-1)).toMatchObject({ event: 'run.terminal', state: 'blocked', artifact: null });
    expect(events.at(-2)).toMatchObject({
      event: 'run.failed',
      level: 'ERROR',
      reason: 'node_failed',
      failed_nodes: ['broken'],
      skipped_nodes: ['child', 'grandchild'],
    });
  });

  it('holds every transition in a schema-valid state (state.json and its log) when progress reports it', async () => {
    const projectDir = await tempProject();
    const snapshots: { progress: RunProgress; state: RunState }[] = [];
    const graph = defineGraph('chain', [
      { id: 'a', type: 'agent_task', agent: 'echo', prompt: 'a', outputPath: 'docs/a.md' },
      {
        id: 'b',
        type: 'agent_task',
        agent: 'echo',
        after: ['a'],
        prompt: '{a.output}',
        outputPath: 'docs/b.md',
      },
      { id: 'c', type: 'write_file', after: ['b'], content: '{b.output}', outputPath: 'docs/c.md' },
    ]);

    await runGraph({
      projectDir,
      graph,
      inputs: {},
      agentFor: agentsOf(echoAgent()),
      runId: 'snap',
      onProgress: (progress) => {
        const log = readFileSync(path.join(projectDir, '.agent/runs/snap/transitions.jsonl'), 'utf8');
        const text = readFileSync(path.join(projectDir, '.agent/runs/snap/state.json'), 'utf8');
        snapshots.push({ progress, state: runStateSchema.parse(resolveRunState(text, 'state.json', log)) });
      },
    });

    expect(
      snapshots.map(({ progress }) => [progress.type, progress.nodeId, progress.done, progress.total]),
    ).toEqual([
      ['node.started', 'a', 0, 3],
      ['node.completed', 'a', 1, 3],
      ['node.started', 'b', 1, 3],
      ['node.completed', 'b', 2, 3],
      ['node.started', 'c', 2, 3],
      ['node.completed', 'c', 3, 3],
    ]);
    for (const { progress, state } of snapshots) {
      expect(state.status).toBe('running');
      expect(state.nodes[progress.nodeId]?.status).toBe(
        progress.type === 'node.started' ? 'running' : 'completed',
      );
    }
    expect(snapshots[2]?.state.nodes).toMatchObject({
      a: { status: 'completed' },
      b: { status: 'running', attempts: 1, output_path: 'docs/b.md' },
      c: { status: 'pending', attempts: 0 },
    });
    expect((await readState(projectDir, 'snap')).status).toBe('completed');
  });

  it('writes run and node events in order, each with the run id', async () => {
    const projectDir = await tempProject();
    const graph = defineGraph(
      'events',
      [
        { id: 'a', type: 'agent_task', agent: 'echo', prompt: '{topic}', outputPath: 'docs/a.md' },
        { id: 'b', type: 'write_file', after: ['a'], content: '{a.output}', outputPath: 'docs/b.md' },
      ],
      { inputs: ['topic'] },
    );
    await runGraph({
      projectDir,
      graph,
      inputs: { topic: 'x' },
      agentFor: agentsOf(echoAgent()),
      runId: 'ev',
    });

    const events = await readEvents(projectDir, 'ev');
    expect(events.map((event) => [event.event, event.node_id])).toEqual([
      ['run.started', undefined],
      ['node.started', 'a'],
      ['node.completed', 'a'],
      ['node.started', 'b'],
      ['node.completed', 'b'],
      ['run.completed', undefined],
      ['run.terminal', undefined],
    ]);
    expect(events.every((event) => event.run_id === 'ev')).toBe(true);
    expect(events[0]).toMatchObject({
      level: 'INFO',
      graph: 'events',
      graph_hash: graph.hash,
      graph_source: 'test:events',
      inputs: ['topic'],
      mode: 'team',
      ingest_enabled: false,
      resumed: false,
      concurrency: 2,
      nodes: 2,
    });
    expect(events[1]).toMatchObject({
      type: 'agent_task',
      attempt: 1,
      agent: 'echo',
      output_path: 'docs/a.md',
    });
    const doc = await readFile(path.join(projectDir, 'docs/a.md'), 'utf8');
    expect(events[2]).toMatchObject({
      level: 'INFO',
      output_path: 'docs/a.md',
      bytes: Buffer.byteLength(doc),
      sha256: sha256(doc),
    });
    expect(events[2]?.ingest).toBeUndefined();
    expect(events[5]).toMatchObject({
      level: 'INFO',
      nodes: { completed: 2, failed: 0, skipped: 0, pending: 0, running: 0 },
    });
  });

  it.each([
    ['a missing input', {}, /input 'goal' is required by graph needs; pass --input goal=VALUE/],
    ['an unknown input', { goal: 'g', extra: '1' }, /unknown input 'extra'; graph needs declares: goal/],
  ])('refuses %s before writing anything', async (_name, inputs, message) => {
    const projectDir = await tempProject();
    const graph = defineGraph(
      'needs',
      [{ id: 'a', type: 'write_file', content: '{goal}', outputPath: 'docs/a.md' }],
      {
        inputs: ['goal'],
      },
    );
    const run = runGraph({ projectDir, graph, inputs, agentFor: agentsOf(), runId: 'x' });
    await expect(run).rejects.toThrow(ConfigError);
    await expect(run).rejects.toThrow(message);
    expect(await exists(path.join(projectDir, '.agent'))).toBe(false);
  });

  it('refuses an unknown agent, a bad run id and a bad concurrency before writing anything', async () => {
    const projectDir = await tempProject();
    const graph = defineGraph('agents', [
      { id: 'a', type: 'agent_task', agent: 'ghost', prompt: 'p', outputPath: 'docs/a.md' },
    ]);
    const base = { projectDir, graph, inputs: {}, agentFor: agentsOf(echoAgent()) };
    await expect(runGraph({ ...base, runId: 'x' })).rejects.toThrow(/unknown agent 'ghost'/);
    await expect(runGraph({ ...base, runId: '../x' })).rejects.toThrow(/run_id: '..\/x' must match/);
    await expect(runGraph({ ...base, runId: 'x', concurrency: 0 })).rejects.toThrow(
      /concurrency: 0 is not a whole number/,
    );
    await expect(runGraph({ ...base, resume: true })).rejects.toThrow(/resuming needs the id of the run/);
    expect(await exists(path.join(projectDir, '.agent'))).toBe(false);
    // --agent overrides every node's agent.
    const result = await runGraph({ ...base, runId: 'y', agentOverride: 'echo' });
    expect(result.state.nodes.a).toMatchObject({ status: 'completed', agent: 'echo' });
  });

  it('fails a node whose rendered output path leaves docs/, and one whose template names a non-dependency', async () => {
    const projectDir = await tempProject();
    const graph = defineGraph(
      'paths',
      [
        { id: 'bad', type: 'write_file', content: 'x', outputPath: 'docs/{name}.md' },
        { id: 'free', type: 'write_file', content: 'x', outputPath: 'docs/free.md' },
        {
          id: 'peek',
          type: 'write_file',
          after: ['free'],
          content: '{bad.output}',
          outputPath: 'docs/peek.md',
        },
      ],
      { inputs: ['name'] },
    );
    const result = await runGraph({
      projectDir,
      graph,
      inputs: { name: '../../etc/x' },
      agentFor: agentsOf(),
      runId: 'p1',
    });

    expect(result.status).toBe('failed');
    expect(result.state.nodes.bad).toMatchObject({
      status: 'failed',
      attempts: 1,
      error: { code: 'bad_output_path' },
    });
    expect(result.state.nodes.bad?.error?.message).toMatch(/".." segment/);
    expect(result.state.nodes.free?.status).toBe('completed');
    expect(result.state.nodes.peek).toMatchObject({ status: 'failed', error: { code: 'template_error' } });
    expect(result.state.nodes.peek?.error?.message).toMatch(
      /\{bad\.output\} needs node bad in the depends_on of node peek/,
    );
    expect(await exists(path.join(projectDir, 'etc'))).toBe(false);
  });

  it('fails a node whose document cannot be written, with the writer refusal', async () => {
    const projectDir = await tempProject({ 'docs/tasks': 'a file where a folder should be' });
    const graph = defineGraph('refused', [
      { id: 'a', type: 'write_file', content: 'x', outputPath: 'docs/tasks/a.md' },
    ]);
    const result = await runGraph({ projectDir, graph, inputs: {}, agentFor: agentsOf(), runId: 'w1' });
    expect(result.state.nodes.a).toMatchObject({ status: 'failed', error: { code: 'output_refused' } });
    expect(result.state.nodes.a?.error?.message).toMatch(/not_a_directory/);
  });

  it('refuses to start a run whose id already exists', async () => {
    const projectDir = await tempProject();
    const graph = defineGraph('once', [
      { id: 'a', type: 'write_file', content: 'x', outputPath: 'docs/a.md' },
    ]);
    await runGraph({ projectDir, graph, inputs: {}, agentFor: agentsOf(), runId: 'same' });
    const again = runGraph({ projectDir, graph, inputs: {}, agentFor: agentsOf(), runId: 'same' });
    await expect(again).rejects.toThrow(RunError);
    await expect(again).rejects.toThrow(/run same already exists .*resume it, or pass another run id/);
  });

  it.each([
    ['a symlinked run folder whose target holds a state.json', 'folder'],
    ['a symlink at state.json', 'file'],
  ])('refuses to start a run over %s, writing nothing through it', async (_, kind) => {
    const projectDir = await tempProject();
    const outside = await tempProject({ 'state.json': '{}' });
    const graph = defineGraph('once', [
      { id: 'a', type: 'write_file', content: 'x', outputPath: 'docs/a.md' },
    ]);
    await mkdir(path.join(projectDir, '.agent/runs/same'), { recursive: true });
    if (kind === 'folder') {
      await writeFile(path.join(outside, 'state.json'), '{}');
      await symlink(outside, path.join(projectDir, '.agent/runs/other'));
    } else {
      await symlink(path.join(outside, 'state.json'), path.join(projectDir, '.agent/runs/same/state.json'));
    }
    const runId = kind === 'folder' ? 'other' : 'same';
    const started = runGraph({ projectDir, graph, inputs: {}, agentFor: agentsOf(), runId });
    await expect(started).rejects.toMatchObject({ code: 'run_dir_unusable' });
    expect(await readdir(outside)).toEqual(['state.json']);
    expect(await readFile(path.join(outside, 'state.json'), 'utf8')).toBe('{}');
  });

  it('stops on abort: the running node fails as aborted, nodes not started stay pending', async () => {
    const projectDir = await tempProject();
    const controller = new AbortController();
    const waiting = testAgent('waiting', async (request) => {
      controller.abort();
      await sleep(30_000, request.signal);
      return 'never';
    });
    const graph = defineGraph('abort', [
      { id: 'a', type: 'agent_task', agent: 'waiting', prompt: 'a', outputPath: 'docs/a.md' },
      { id: 'b', type: 'write_file', content: 'b', outputPath: 'docs/b.md' },
    ]);
    const result = await runGraph({
      projectDir,
      graph,
      inputs: {},
      agentFor: agentsOf(waiting),
      runId: 'ab',
      concurrency: 1,
      signal: controller.signal,
    });
    expect(result.status).toBe('failed');
    expect(result.state.nodes.a).toMatchObject({ status: 'failed', error: { code: 'aborted' } });
    expect(result.state.nodes.b).toEqual({ status: 'pending', attempts: 0 });
    const events = await readEvents(projectDir, 'ab');
    expect(events.at(-1)).toMatchObject({ event: 'run.failed', reason: 'aborted', pending_nodes: ['b'] });
    // Interrupted, not ended: it stays resumable and declares no terminal state.
    expect(result.terminal).toBeUndefined();
    expect(await exists(path.join(projectDir, '.agent/runs/ab/terminal.json'))).toBe(false);
  });

  it('names a default run id after the graph and the UTC time', async () => {
    expect(defaultRunId('team', new Date('2025-06-01T12:00:00.123Z'))).toBe('team-20250601T120000123Z');
    expect(defaultRunId('my graph/v2', new Date('2025-06-01T12:00:00.123Z'))).toBe(
      'my-graph-v2-20250601T120000123Z',
    );
    expect(defaultRunId('--', new Date(0))).toBe('run-19700101T000000000Z');
    expect(defaultRunId('x'.repeat(300)).length).toBe(128);
    const projectDir = await tempProject();
    const graph = defineGraph('dflt', [
      { id: 'a', type: 'write_file', content: 'x', outputPath: 'docs/a.md' },
    ]);
    const result = await runGraph({
      projectDir,
      graph,
      inputs: {},
      agentFor: agentsOf(),
      now: () => new Date('2025-06-01T12:00:00.123Z'),
    });
    expect(result.runId).toBe('dflt-20250601T120000123Z');
    expect(result.state.created_at).toBe('2025-06-01T12:00:00.123Z');
  });
});
