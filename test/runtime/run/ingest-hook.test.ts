import { existsSync } from 'node:fs';
import { readdir, readFile, readlink, realpath } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { parseNodeId, parseRunId } from '../../../src/project/index.js';
import type { NodeId } from '../../../src/project/index.js';
import { memoryEventLog } from '../../../src/events/index.js';
import { ingestManifestSchema } from '../../../src/ingest/index.js';
import { runIngestHook } from '../../../src/runtime/run/ingest-hook.js';
import { runGraph } from '../../../src/runtime/run/run-graph.js';
import type { RunProgress } from '../../../src/runtime/run/run-types.js';
import { hostileNestedLists } from '../../helpers/hostile-markdown.js';
import { fileBlock, readEvents, tempProject } from '../../helpers/temp-project.js';
import { graphOf } from './fixtures/contract-fixtures.js';
import {
  agentsOf,
  blockReply,
  defineGraph,
  echoAgent,
  exists,
  readState,
  testAgent,
} from './fixtures/run-graph-fixtures.js';

const twoNodeGraph = (mode: 'team' | 'self_critique' = 'team') =>
  defineGraph(
    'hooked',
    [
      { id: 'plan', type: 'agent_task', agent: 'echo', prompt: 'plan', outputPath: 'docs/plan.md' },
      {
        id: 'notes',
        type: 'write_file',
        after: ['plan'],
        content: `Notes\n\n${fileBlock('py', 'pkg/notes.py', 'print(1)')}`,
        outputPath: 'docs/notes.md',
      },
      {
        id: 'audit',
        type: 'write_file',
        after: ['plan'],
        content: '{plan.output}',
        outputPath: 'audits/plan.md',
      },
    ],
    { mode },
  );

async function manifestOf(projectDir: string, runId: string, nodeId: string) {
  const file = path.join(projectDir, '.agent/runs', runId, 'manifests', `${nodeId}.json`);
  return ingestManifestSchema.parse(JSON.parse(await readFile(file, 'utf8')));
}

const encode = (text: string): Uint8Array => new TextEncoder().encode(text);

/** How many of this process's file descriptors point at `directory` (Linux /proc). */
async function descriptorsOn(directory: string): Promise<number> {
  const target = await realpath(directory).catch(() => null);
  if (target === null) return 0;
  const links = await Promise.all(
    (await readdir('/proc/self/fd')).map((fd) => readlink(`/proc/self/fd/${fd}`).catch(() => '')),
  );
  return links.filter((link) => link === target).length;
}

describe('runIngestHook', () => {
  it('ingests one document as graph_runtime with the mode and returns the manifest summary', async () => {
    const doc = `# Plan\n\n${fileBlock('ts', 'src/a.ts', 'export {};')}\n${fileBlock('sh', '../x.sh', 'rm -rf /')}`;
    const projectDir = await tempProject({ 'docs/plan.md': doc });
    const events = memoryEventLog({ run_id: 'h1' });

    const { summary, contents } = await runIngestHook({
      projectDir,
      runId: parseRunId('h1'),
      nodeId: parseNodeId('plan'),
      docPath: 'docs/plan.md',
      content: encode(doc),
      mode: 'single',
      events,
    });

    expect(summary).toEqual({
      total_blocks: 2,
      written: 1,
      skipped: 0,
      rejected: 1,
      manifest_path: '.agent/runs/h1/manifests/plan.json',
      problems: [],
    });
    expect(contents).toEqual([
      {
        workspacePath: 'workspace/src/a.ts',
        lang: 'ts',
        bytes: new TextEncoder().encode('export {};\n'),
        status: 'written',
        code: null,
      },
    ]);
    const manifest = await manifestOf(projectDir, 'h1', 'plan');
    expect(manifest.source).toEqual({ kind: 'graph_runtime', mode: 'single', doc_path: 'docs/plan.md' });
    expect(await readFile(path.join(projectDir, 'workspace/src/a.ts'), 'utf8')).toBe('export {};\n');
    expect(events.lines.map((line) => line.event)).toEqual([
      'ingest.started',
      'ingest.block',
      'ingest.block',
      'ingest.summary',
    ]);
    expect(events.lines.every((line) => line.run_id === 'h1' && line.node_id === 'plan')).toBe(true);
  });

  it('ingests the bytes it is handed, not the document on disk', async () => {
    const onDisk = `# Plan\n\n${fileBlock('ts', 'src/disk.ts', 'disk')}`;
    const written = `# Plan\n\n${fileBlock('ts', 'src/given.ts', 'given')}`;
    const projectDir = await tempProject({ 'docs/plan.md': onDisk });
    const events = memoryEventLog({ run_id: 'h4' });

    const { summary } = await runIngestHook({
      projectDir,
      runId: parseRunId('h4'),
      nodeId: parseNodeId('plan'),
      docPath: 'docs/plan.md',
      content: encode(written),
      mode: 'team',
      events,
    });

    expect(summary).toMatchObject({ total_blocks: 1, written: 1, problems: [] });
    const manifest = await manifestOf(projectDir, 'h4', 'plan');
    expect(manifest.artifacts.map((artifact) => artifact.workspace_path)).toEqual(['workspace/src/given.ts']);
    expect(await readFile(path.join(projectDir, 'workspace/src/given.ts'), 'utf8')).toBe('given\n');
    expect(await exists(path.join(projectDir, 'workspace/src/disk.ts'))).toBe(false);
  });

  it('ingests a document whose file is gone by the time the hook runs', async () => {
    const projectDir = await tempProject();
    const events = memoryEventLog({ run_id: 'h5' });

    const { summary, contents } = await runIngestHook({
      projectDir,
      runId: parseRunId('h5'),
      nodeId: parseNodeId('plan'),
      docPath: 'docs/removed.md',
      content: encode(fileBlock('py', 'pkg/a.py', 'x = 1')),
      mode: 'team',
      events,
    });

    expect(await exists(path.join(projectDir, 'docs/removed.md'))).toBe(false);
    expect(summary).toMatchObject({ total_blocks: 1, written: 1, problems: [] });
    expect(contents.map((content) => content.workspacePath)).toEqual(['workspace/pkg/a.py']);
    expect((await manifestOf(projectDir, 'h5', 'plan')).source.doc_path).toBe('docs/removed.md');
  });

  it('never throws: an exception from the ingest becomes an ingest.error event and an internal_error summary', async () => {
    const projectDir = await tempProject({ 'docs/plan.md': '# x\n' });
    const events = memoryEventLog({ run_id: 'h2' });

    // A node id the layout refuses makes runIngest throw (misuse); the hook must still return.
    const { summary, contents } = await runIngestHook({
      projectDir,
      runId: parseRunId('h2'),
      // An id that skipped parsing, as a caller without types could pass it.
      nodeId: 'bad id' as NodeId,
      docPath: 'docs/plan.md',
      content: encode('# x\n'),
      mode: 'team',
      events,
    });

    expect(summary).toEqual({
      total_blocks: 0,
      written: 0,
      skipped: 0,
      rejected: 0,
      manifest_path: '',
      problems: ['internal_error'],
    });
    expect(contents).toEqual([]);
    expect(events.lines).toEqual([
      expect.objectContaining({
        level: 'ERROR',
        event: 'ingest.error',
        code: 'internal_error',
        node_id: 'bad id',
        doc_path: 'docs/plan.md',
      }),
    ]);
    expect(String(events.lines[0]?.message)).toMatch(/nodeId "bad id" must match/);
  });

  it('stays quiet towards the caller even when the event log is closed', async () => {
    const projectDir = await tempProject({ 'docs/plan.md': '# x\n' });
    const events = memoryEventLog();
    await events.close();
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const { summary } = await runIngestHook({
      projectDir,
      runId: parseRunId('h3'),
      nodeId: 'bad id' as NodeId,
      docPath: 'docs/plan.md',
      content: encode('# x\n'),
      mode: 'team',
      events,
    });
    expect(summary.problems).toEqual(['internal_error']);
    expect(stderr).toHaveBeenCalledWith(
      expect.stringMatching(/^artifact-ingest: ingest of docs\/plan\.md threw: /),
    );
    stderr.mockRestore();
  });
});

describe('the post-write hook in runGraph', () => {
  it('is off by default: no manifests, no workspace, no ingest summary', async () => {
    const projectDir = await tempProject();
    const result = await runGraph({
      projectDir,
      graph: twoNodeGraph(),
      inputs: {},
      agentFor: agentsOf(echoAgent()),
      runId: 'off',
    });

    expect(result.status).toBe('completed');
    expect(result.state.ingest_enabled).toBe(false);
    expect(result.state.nodes.plan?.ingest).toBeUndefined();
    expect(await exists(path.join(projectDir, 'workspace'))).toBe(false);
    expect(await exists(path.join(projectDir, '.agent/runs/off/manifests'))).toBe(false);
    const events = await readEvents(projectDir, 'off');
    expect(events.some((event) => String(event.event).startsWith('ingest.'))).toBe(false);
  });

  it('when enabled, ingests each document, records manifests and carries the summary everywhere', async () => {
    const projectDir = await tempProject();
    const progress: RunProgress[] = [];
    const result = await runGraph({
      projectDir,
      graph: twoNodeGraph('self_critique'),
      inputs: {},
      agentFor: agentsOf(echoAgent()),
      runId: 'on',
      ingest: { enabled: true, durability: 'none' },
      // One node at a time: the event order below is exact.
      concurrency: 1,
      onProgress: (event) => progress.push(event),
    });

    expect(result.status).toBe('completed');
    expect(result.state.ingest_enabled).toBe(true);
    const planSummary = {
      total_blocks: 1,
      written: 1,
      skipped: 0,
      rejected: 0,
      manifest_path: '.agent/runs/on/manifests/plan.json',
      problems: [],
    };
    expect(result.state.nodes.plan?.ingest).toEqual(planSummary);
    expect(result.state.nodes.notes?.ingest).toMatchObject({
      written: 1,
      manifest_path: '.agent/runs/on/manifests/notes.json',
    });

    // Spec ingest.md layout: audits/ documents are not ingested.
    expect(result.state.nodes.audit?.status).toBe('completed');
    expect(result.state.nodes.audit?.ingest).toBeUndefined();
    expect(await exists(path.join(projectDir, '.agent/runs/on/manifests/audit.json'))).toBe(false);

    for (const [nodeId, docPath] of [
      ['plan', 'docs/plan.md'],
      ['notes', 'docs/notes.md'],
    ] as const) {
      const manifest = await manifestOf(projectDir, 'on', nodeId);
      expect(manifest).toMatchObject({
        run_id: 'on',
        node_id: nodeId,
        source: { kind: 'graph_runtime', mode: 'self_critique', doc_path: docPath },
      });
    }
    expect(await readFile(path.join(projectDir, 'workspace/src/plan.ts'), 'utf8')).toBe(
      `${blockReply('plan', 'plan').split('\n')[5] ?? ''}\n`,
    );
    expect(await readFile(path.join(projectDir, 'workspace/pkg/notes.py'), 'utf8')).toBe('print(1)\n');

    const events = await readEvents(projectDir, 'on');
    const names = events.map(
      (event) => `${String(event.event)}:${typeof event.node_id === 'string' ? event.node_id : ''}`,
    );
    expect(names).toEqual([
      'run.started:',
      'node.started:plan',
      'ingest.started:plan',
      'ingest.block:plan',
      'ingest.summary:plan',
      'node.completed:plan',
      'node.started:notes',
      'ingest.started:notes',
      'ingest.block:notes',
      'ingest.summary:notes',
      'node.completed:notes',
      'node.started:audit',
      'node.ingest_skipped:audit',
      'node.completed:audit',
      'run.completed:',
      'run.terminal:',
    ]);
    expect(events.every((event) => event.run_id === 'on')).toBe(true);
    expect(events[0]).toMatchObject({ ingest_enabled: true, mode: 'self_critique' });
    expect(events[5]).toMatchObject({ event: 'node.completed', ingest: planSummary });
    expect(
      progress.find((event) => event.type === 'node.completed' && event.nodeId === 'plan'),
    ).toMatchObject({ ingest: planSummary });
  });

  it.skipIf(!existsSync('/proc/self/fd'))(
    'opens workspace/ once for all its nodes and closes it at the end of the run',
    async () => {
      const projectDir = await tempProject();
      const workspace = path.join(projectDir, 'workspace');
      const graph = defineGraph('one-root', [
        { id: 'first', type: 'agent_task', agent: 'counter', prompt: 'first', outputPath: 'docs/first.md' },
        {
          id: 'second',
          type: 'agent_task',
          agent: 'counter',
          after: ['first'],
          prompt: 'second',
          outputPath: 'docs/second.md',
        },
        {
          id: 'third',
          type: 'agent_task',
          agent: 'counter',
          after: ['second'],
          prompt: 'third',
          outputPath: 'docs/third.md',
        },
      ]);
      // What this process holds open on workspace/ while each node's agent runs (the OS's own count, no mock).
      const held: Record<string, number> = {};
      const counter = testAgent('counter', async (request) => {
        held[request.nodeId] = await descriptorsOn(workspace);
        return blockReply(request.nodeId, request.prompt);
      });

      const result = await runGraph({
        projectDir,
        graph,
        inputs: {},
        agentFor: agentsOf(counter),
        runId: 'one-root',
        ingest: { enabled: true, durability: 'none' },
      });

      expect(result.status).toBe('completed');
      for (const nodeId of ['first', 'second', 'third']) {
        expect(result.state.nodes[nodeId]?.ingest).toMatchObject({ written: 1, problems: [] });
        expect(await exists(path.join(workspace, `src/${nodeId}.ts`))).toBe(true);
      }
      // Nothing is open before the first ingest; after it, the one root stays open for the next nodes.
      expect(held).toEqual({ first: 0, second: 1, third: 1 });
      expect(await descriptorsOn(workspace)).toBe(0);
    },
  );

  it('is fail-open: an ingest that cannot write leaves the node and the run completed, with ingest.error', async () => {
    // workspace is a regular file: every extraction fails with an I/O error.
    const projectDir = await tempProject({ workspace: 'not a directory' });
    const result = await runGraph({
      projectDir,
      graph: twoNodeGraph(),
      inputs: {},
      agentFor: agentsOf(echoAgent()),
      runId: 'broken',
      ingest: { enabled: true, durability: 'none' },
    });

    expect(result.status).toBe('completed');
    expect(result.state.nodes.plan?.status).toBe('completed');
    expect(result.state.nodes.plan?.ingest?.problems.length).toBeGreaterThan(0);
    expect(await readState(projectDir, 'broken')).toEqual(result.state);
    const events = await readEvents(projectDir, 'broken');
    const errors = events.filter((event) => event.event === 'ingest.error');
    expect(errors.length).toBeGreaterThan(0);
    expect(errors[0]).toMatchObject({ level: 'ERROR', run_id: 'broken', node_id: 'plan' });
    expect(events.at(-2)).toMatchObject({ event: 'run.completed' });
    expect(events.at(-1)).toMatchObject({ event: 'run.terminal', state: 'done' });
    expect(await readFile(path.join(projectDir, 'workspace'), 'utf8')).toBe('not a directory');
  });
});

describe('a hostile document next to a parallel command node', () => {
  /** Runs the hostile node beside a 2 s command with a 4 s timeout, ingest on, with the given block parser. */
  async function runBesideCommand(parser: 'micromark' | undefined) {
    const projectDir = await tempProject();
    const node = JSON.stringify(process.execPath);
    const graph = graphOf(
      'hostile',
      `nodes:
  - id: hostile
    type: agent_task
    agent: writer
    prompt: write
    output_path: docs/{run_id}/hostile.md
  - id: smoke
    type: command
    commands: [[${node}, -e, "setTimeout(() => {}, 2000)"]]
    timeout_ms: 4000
    output_path: docs/{run_id}/smoke.md
`,
    );
    const result = await runGraph({
      projectDir,
      graph,
      inputs: {},
      agentFor: agentsOf(testAgent('writer', () => hostileNestedLists())),
      runId: 'hostile',
      // Longer than the command's timeout: a parse that blocked the event loop would make it miss it.
      ingest: {
        enabled: true,
        durability: 'none',
        ...(parser === undefined ? {} : { parser }),
        limits: { maxParseMs: 5_000 },
      },
      concurrency: 2,
    });
    expect(result.state.nodes.smoke).toMatchObject({
      status: 'completed',
      contract: { type: 'smoke_test_result', state: 'done' },
    });
    expect(result.status).toBe('completed');
    return { projectDir, result };
  }

  it('keeps scheduling: the command finishes within its timeout, the hostile ingest ends too_complex', async () => {
    const { projectDir, result } = await runBesideCommand('micromark');
    // Fail-open: an ingest problem is carried in the summary, the node itself completes.
    expect(result.state.nodes.hostile).toMatchObject({
      status: 'completed',
      ingest: { written: 0, problems: ['too_complex'] },
    });
    const events = await readEvents(projectDir, 'hostile');
    expect(events.find((event) => event.event === 'ingest.error')).toMatchObject({
      node_id: 'hostile',
      code: 'too_complex',
      message: expect.stringContaining('max_parse_ms (5000 ms)') as unknown,
    });
  });

  it("writes the hostile document's block with the scanner, the default parser", async () => {
    const { projectDir, result } = await runBesideCommand(undefined);
    expect(result.state.nodes.hostile).toMatchObject({
      status: 'completed',
      ingest: { written: 1, problems: [] },
    });
    expect(await readFile(path.join(projectDir, 'workspace', 'a.ts'), 'utf8')).toBe('x\n');
  });
});
