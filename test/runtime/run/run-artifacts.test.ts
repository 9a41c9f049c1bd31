import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseNodeId, parseRunId, tracePath } from '../../../src/project/index.js';
import { openObjectStore, readArtifactRecords, traceContentSchema } from '../../../src/artifacts/index.js';
import type { ArtifactRecord, TraceContent } from '../../../src/artifacts/index.js';
import { AgentError } from '../../../src/runtime/agents/agent.js';
import { runGraph } from '../../../src/runtime/run/run-graph.js';
import { fileBlock, readEvents, tempProject } from '../../helpers/temp-project.js';
import {
  agentsOf,
  blockReply,
  defineGraph,
  echoAgent,
  readState,
  sleep,
  testAgent,
} from './fixtures/run-graph-fixtures.js';

const ingest = { enabled: true, durability: 'none' } as const;
const sha256 = (data: string | Uint8Array): string => createHash('sha256').update(data).digest('hex');

async function recordsOf(projectDir: string, runId: string): Promise<readonly ArtifactRecord[]> {
  const { records, problems } = await readArtifactRecords(projectDir, runId);
  expect(problems).toEqual([]);
  return records;
}

/** Reads each record's content back from the object store (verified on read). */
async function contentsOf(projectDir: string, records: readonly ArtifactRecord[]): Promise<Uint8Array[]> {
  const store = await openObjectStore(projectDir);
  try {
    return await Promise.all(records.map((record) => store.get(record.contentHash)));
  } finally {
    await store.close();
  }
}

async function tracesOf(projectDir: string, records: readonly ArtifactRecord[]): Promise<TraceContent[]> {
  const traces = records.filter((record) => record.type === 'trace');
  const contents = await contentsOf(projectDir, traces);
  return contents.map((bytes) => traceContentSchema.parse(JSON.parse(new TextDecoder().decode(bytes))));
}

const brief = (records: readonly ArtifactRecord[]) =>
  records.map((record) => `${record.type}:${record.taskId}:${record.path}`);

describe('artifact records of a run', () => {
  it('records per node its document, then the files its ingest wrote, then its trace', async () => {
    const projectDir = await tempProject();
    const graph = defineGraph('recorded', [
      { id: 'plan', type: 'agent_task', agent: 'echo', prompt: 'plan it', outputPath: 'docs/plan.md' },
      {
        id: 'notes',
        type: 'write_file',
        after: ['plan'],
        content: `Notes\n\n${fileBlock('py', 'pkg/notes.py', 'print(1)\nprint(2)')}`,
        outputPath: 'docs/notes.md',
      },
    ]);

    const result = await runGraph({
      projectDir,
      graph,
      inputs: {},
      agentFor: agentsOf(echoAgent()),
      runId: 'r1',
      ingest,
    });

    expect(result.status).toBe('completed');
    const records = await recordsOf(projectDir, 'r1');
    expect(brief(records)).toEqual([
      'message:plan:docs/plan.md',
      'file:plan:workspace/src/plan.ts',
      `trace:plan:${tracePath(parseRunId('r1'), parseNodeId('plan'))}`,
      'message:notes:docs/notes.md',
      'file:notes:workspace/pkg/notes.py',
      `trace:notes:${tracePath(parseRunId('r1'), parseNodeId('notes'))}`,
    ]);
    expect(
      records.map((record) => [record.agentId, record.metadata.source, record.metadata.language]),
    ).toEqual([
      ['echo', 'runtime', 'markdown'],
      ['echo', 'ingest', 'ts'],
      ['echo', 'runtime', 'json'],
      ['runtime', 'runtime', 'markdown'],
      ['runtime', 'ingest', 'py'],
      ['runtime', 'runtime', 'json'],
    ]);

    // Every version's content is the bytes on disk, stored under their hash; a first version adds every line.
    const versions = records.filter((record) => record.type !== 'trace');
    const stored = await contentsOf(projectDir, versions);
    for (const [index, record] of versions.entries()) {
      const onDisk = await readFile(path.join(projectDir, record.path));
      expect(Buffer.from(stored[index] ?? [])).toEqual(onDisk);
      expect(record.contentHash).toBe(`sha256:${sha256(onDisk)}`);
      expect(record.metadata).toMatchObject({
        bytes: onDisk.byteLength,
        linesAdded: onDisk.toString('utf8').split('\n').length - 1,
        linesRemoved: 0,
      });
      expect(record.metadata.previous).toBeUndefined();
    }

    const state = await readState(projectDir, 'r1');
    const [planTrace, notesTrace] = await tracesOf(projectDir, records);
    expect(planTrace).toMatchObject({
      version: 1,
      runId: 'r1',
      nodeId: 'plan',
      agent: 'echo',
      graph: { name: 'recorded', hash: state.graph.hash },
      promptSha256: state.nodes.plan?.prompt_sha256,
      attempt: 1,
      startedAt: state.nodes.plan?.started_at,
      finishedAt: state.nodes.plan?.finished_at,
      outcome: 'completed',
      document: {
        path: 'docs/plan.md',
        sha256: state.nodes.plan?.output_sha256,
        bytes: Buffer.byteLength(blockReply('plan', 'plan it')),
      },
      ingest: state.nodes.plan?.ingest,
    });
    expect(planTrace?.promptSha256).toBe(sha256('plan it'));
    expect(planTrace?.error).toBeUndefined();
    expect(notesTrace).toMatchObject({ agent: 'runtime', promptSha256: null, outcome: 'completed' });
  });

  it('records documents and traces with ingest off, and no files', async () => {
    const projectDir = await tempProject();
    const graph = defineGraph('quiet', [
      { id: 'plan', type: 'agent_task', agent: 'echo', prompt: 'p', outputPath: 'docs/plan.md' },
    ]);
    await runGraph({ projectDir, graph, inputs: {}, agentFor: agentsOf(echoAgent()), runId: 'off' });

    const records = await recordsOf(projectDir, 'off');
    expect(brief(records)).toEqual([
      'message:plan:docs/plan.md',
      `trace:plan:${tracePath(parseRunId('off'), parseNodeId('plan'))}`,
    ]);
    const [trace] = await tracesOf(projectDir, records);
    expect(trace?.ingest).toBeUndefined();
  });

  it('links a changed file to its previous version with line counts, and records no unchanged file', async () => {
    const projectDir = await tempProject();
    const graph = defineGraph(
      'twice',
      [
        {
          id: 'code',
          type: 'write_file',
          content: `${fileBlock('ts', 'a.ts', 'export const a = 1;')}\n${fileBlock('ts', 'b.ts', 'one\n{b}')}`,
          outputPath: 'docs/code.md',
        },
      ],
      { inputs: ['b'] },
    );
    const run = (runId: string, b: string) =>
      runGraph({ projectDir, graph, inputs: { b }, agentFor: agentsOf(), runId, ingest });

    await run('r1', 'two\nthree');
    await run('r2', 'TWO\nthree');

    const first = await recordsOf(projectDir, 'r1');
    const second = await recordsOf(projectDir, 'r2');
    expect(brief(second)).toEqual([
      'message:code:docs/code.md',
      'file:code:workspace/b.ts',
      `trace:code:${tracePath(parseRunId('r2'), parseNodeId('code'))}`,
    ]);
    const firstOf = (file: string) => first.find((record) => record.path === file);
    const [message, b] = second;
    expect(b?.metadata).toMatchObject({
      previous: firstOf('workspace/b.ts')?.artifactId,
      linesAdded: 1,
      linesRemoved: 1,
    });
    expect(message?.metadata).toMatchObject({
      previous: firstOf('docs/code.md')?.artifactId,
      linesAdded: 1,
      linesRemoved: 1,
    });
  });

  it('records a file edited by hand when a document puts back bytes it already holds', async () => {
    const projectDir = await tempProject();
    const graph = defineGraph(
      'edited',
      [
        {
          id: 'code',
          type: 'write_file',
          content: fileBlock('ts', 'a.ts', '{a}'),
          outputPath: 'docs/code.md',
        },
      ],
      { inputs: ['a'] },
    );
    await runGraph({ projectDir, graph, inputs: { a: 'first' }, agentFor: agentsOf(), runId: 'r1', ingest });
    await writeFile(path.join(projectDir, 'workspace/a.ts'), 'by hand\n');

    await runGraph({
      projectDir,
      graph,
      inputs: { a: 'by hand' },
      agentFor: agentsOf(),
      runId: 'r2',
      ingest,
    });

    const manifest = JSON.parse(
      await readFile(path.join(projectDir, '.agent/runs/r2/manifests/code.json'), 'utf8'),
    ) as { artifacts: { reason: string }[] };
    expect(manifest.artifacts[0]?.reason).toMatch(/^unchanged: /);
    const [first] = (await recordsOf(projectDir, 'r1')).filter((record) => record.type === 'file');
    const [again] = (await recordsOf(projectDir, 'r2')).filter((record) => record.type === 'file');
    expect(again).toMatchObject({
      path: 'workspace/a.ts',
      contentHash: `sha256:${sha256('by hand\n')}`,
      metadata: { previous: first?.artifactId, linesAdded: 1, linesRemoved: 1 },
    });
  });

  it('gives a failed node a failed trace and no document, and a skipped node no records', async () => {
    const projectDir = await tempProject();
    const agent = testAgent('flaky', () => {
      throw new AgentError('exit_status', 'the model exited with status 2');
    });
    const graph = defineGraph('fails', [
      { id: 'broken', type: 'agent_task', agent: 'flaky', prompt: 'x', outputPath: 'docs/broken.md' },
      { id: 'after', type: 'write_file', after: ['broken'], content: 'y', outputPath: 'docs/after.md' },
    ]);
    const result = await runGraph({ projectDir, graph, inputs: {}, agentFor: agentsOf(agent), runId: 'f1' });

    expect(result.status).toBe('failed');
    const records = await recordsOf(projectDir, 'f1');
    expect(brief(records)).toEqual([`trace:broken:${tracePath(parseRunId('f1'), parseNodeId('broken'))}`]);
    expect(records[0]?.agentId).toBe('flaky');
    const [trace] = await tracesOf(projectDir, records);
    expect(trace).toMatchObject({
      agent: 'flaky',
      attempt: 1,
      outcome: 'failed',
      promptSha256: result.state.nodes.broken?.prompt_sha256,
      error: { code: 'exit_status', message: 'the model exited with status 2' },
    });
    expect(trace?.document).toBeUndefined();
  });

  it('is fail-open: a store that cannot be opened leaves the run completed, with redacted artifacts.error events', async () => {
    const parent = await tempProject();
    // A credential-looking folder name: the error messages name the path, and must not leak it.
    const token = 'ghp_' + 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8';
    const projectDir = path.join(parent, token);
    await mkdir(path.join(projectDir, '.agent'), { recursive: true });
    await writeFile(path.join(projectDir, '.agent/objects'), 'not a directory');
    const graph = defineGraph('unrecorded', [
      { id: 'plan', type: 'agent_task', agent: 'echo', prompt: 'p', outputPath: 'docs/plan.md' },
      {
        id: 'next',
        type: 'write_file',
        after: ['plan'],
        content: '{plan.output}',
        outputPath: 'docs/next.md',
      },
    ]);

    const result = await runGraph({
      projectDir,
      graph,
      inputs: {},
      agentFor: agentsOf(echoAgent()),
      runId: 'fo',
      ingest,
    });

    expect(result.status).toBe('completed');
    expect(result.state.nodes.next?.status).toBe('completed');
    expect(await recordsOf(projectDir, 'fo')).toEqual([]);
    const events = await readEvents(projectDir, 'fo');
    const errors = events.filter((event) => event.event === 'artifacts.error');
    // Per node: its document, its files, its trace.
    expect(errors.map((event) => event.node_id)).toEqual(['plan', 'plan', 'plan', 'next', 'next', 'next']);
    for (const error of errors) {
      expect(error).toMatchObject({ level: 'ERROR', run_id: 'fo', code: 'record_failed' });
      expect(String(error.message)).toMatch(/not recorded: .*check that \.agent\/ is a writable directory/);
      expect(String(error.message)).not.toContain(token);
    }
    expect(events.at(-2)).toMatchObject({ event: 'run.completed' });
    expect(events.at(-1)).toMatchObject({ event: 'run.terminal', state: 'done' });
  });

  it('with concurrent nodes, files carry the taskId of the node whose trace follows them', async () => {
    const projectDir = await tempProject();
    const slow = testAgent('slow', async (request) => {
      await sleep(request.nodeId === 'left' ? 40 : 10);
      return blockReply(request.nodeId, request.prompt);
    });
    const ids = ['left', 'right', 'middle', 'other'];
    const graph = defineGraph(
      'wide',
      ids.map((id) => ({
        id,
        type: 'agent_task' as const,
        agent: 'slow',
        prompt: id,
        outputPath: `docs/${id}.md`,
      })),
    );
    await runGraph({
      projectDir,
      graph,
      inputs: {},
      agentFor: agentsOf(slow),
      runId: 'c2',
      concurrency: 2,
      ingest,
    });

    const records = await recordsOf(projectDir, 'c2');
    expect(records).toHaveLength(ids.length * 3);
    // Spec rule: a record belongs to the first trace after it with the same taskId.
    const byTrace = new Map<string, string[]>();
    records.forEach((record, index) => {
      if (record.type === 'trace') return;
      const trace = records.slice(index + 1).find((r) => r.type === 'trace' && r.taskId === record.taskId);
      expect(trace).toBeDefined();
      byTrace.set(trace?.taskId ?? '', [...(byTrace.get(trace?.taskId ?? '') ?? []), record.path]);
    });
    expect(Object.fromEntries(byTrace)).toEqual(
      Object.fromEntries(ids.map((id) => [id, [`docs/${id}.md`, `workspace/src/${id}.ts`]])),
    );
    const traces = await tracesOf(projectDir, records);
    expect(traces.map((trace) => trace.nodeId).sort()).toEqual([...ids].sort());
  });

  it('on resume, re-runs an interrupted node without recording its identical document twice', async () => {
    const projectDir = await tempProject();
    const graph = defineGraph('resumed', [
      { id: 'a', type: 'agent_task', agent: 'echo', prompt: 'a', outputPath: 'docs/a.md' },
      {
        id: 'b',
        type: 'agent_task',
        agent: 'echo',
        after: ['a'],
        prompt: '{a.output}',
        outputPath: 'docs/b.md',
      },
    ]);
    await runGraph({ projectDir, graph, inputs: {}, agentFor: agentsOf(echoAgent()), runId: 'rs', ingest });
    // The state a crash leaves between b's records and its completion: b still running.
    const statePath = path.join(projectDir, '.agent/runs/rs/state.json');
    const state = JSON.parse(await readFile(statePath, 'utf8')) as {
      status: string;
      nodes: Record<string, Record<string, unknown>>;
    };
    const finished = new Set(['status', 'finished_at', 'output_sha256', 'ingest']);
    const b = Object.entries(state.nodes.b ?? {}).filter(([key]) => !finished.has(key));
    state.status = 'running';
    state.nodes.b = { ...Object.fromEntries(b), status: 'running' };
    await writeFile(statePath, JSON.stringify(state));

    const resumed = await runGraph({
      projectDir,
      graph,
      inputs: {},
      agentFor: agentsOf(echoAgent()),
      runId: 'rs',
      resume: true,
      ingest,
    });

    expect(resumed.state.nodes.b).toMatchObject({ status: 'completed', attempts: 2 });
    const records = await recordsOf(projectDir, 'rs');
    expect(brief(records)).toEqual([
      'message:a:docs/a.md',
      'file:a:workspace/src/a.ts',
      `trace:a:${tracePath(parseRunId('rs'), parseNodeId('a'))}`,
      'message:b:docs/b.md',
      'file:b:workspace/src/b.ts',
      `trace:b:${tracePath(parseRunId('rs'), parseNodeId('b'))}`,
      `trace:b:${tracePath(parseRunId('rs'), parseNodeId('b'))}`,
    ]);
    const traces = await tracesOf(projectDir, records);
    expect(traces.map((trace) => [trace.nodeId, trace.attempt, trace.outcome])).toEqual([
      ['a', 1, 'completed'],
      ['b', 1, 'completed'],
      ['b', 2, 'completed'],
    ]);
  });
});
