import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAgent } from '../../../src/runtime/agents/create-agent.js';
import { runGraph } from '../../../src/runtime/run/run-graph.js';
import { startRunOutputLimit } from '../../../src/runtime/run/run-output-limit.js';
import { readEvents, tempProject } from '../../helpers/temp-project.js';
import { defineGraph, readState } from './fixtures/run-graph-fixtures.js';

describe('startRunOutputLimit', () => {
  it.each([
    // [bytes before, document bytes, refused with]
    [0, 100, undefined],
    [0, 101, 'over max_document_bytes (100 bytes)'],
    [200, 100, undefined],
    [201, 100, 'over max_run_document_bytes (300 bytes)'],
  ])('with %i bytes written, a document of %i bytes is refused with %s', (before, bytes, refused) => {
    const limit = startRunOutputLimit({
      maxDocumentBytes: 100,
      maxRunDocumentBytes: 300,
      bytesBefore: before,
    });
    const message = limit.reserve('n1', bytes);
    if (refused === undefined) expect(message).toBeUndefined();
    else expect(message).toContain(refused);
  });

  it('counts a document when it is reserved, and nothing for a refused one', () => {
    const limit = startRunOutputLimit({ maxDocumentBytes: 100, maxRunDocumentBytes: 150, bytesBefore: 0 });
    expect(limit.reserve('a', 100)).toBeUndefined();
    expect(limit.reserve('b', 60)).toContain('would bring the run');
    expect(limit.reserve('c', 50)).toBeUndefined();
    expect(limit.reserve('d', 1)).toContain("run's documents to 151 bytes");
  });
});

describe('runGraph output limits', () => {
  it('fails an agent node whose reply is over max_document_bytes, before writing it', async () => {
    const projectDir = await tempProject();
    const replies = path.join(projectDir, 'replies');
    await mkdir(replies);
    await writeFile(path.join(replies, 'big.md'), `# big\n${'z'.repeat(2000)}\n`);
    const agent = createAgent('replayer', { kind: 'replay', dir: replies });
    const graph = defineGraph('reply', [
      { id: 'big', type: 'agent_task', agent: 'replayer', prompt: 'go', outputPath: 'docs/big.md' },
      {
        id: 'after',
        type: 'write_file',
        after: ['big'],
        content: '{big.output}',
        outputPath: 'docs/after.md',
      },
    ]);
    const result = await runGraph({
      projectDir,
      graph,
      inputs: {},
      agentFor: () => agent,
      runId: 'r1',
      ingest: { enabled: true, limits: { maxDocumentBytes: 1024 } },
    });
    expect(result.status).toBe('failed');
    expect(result.state.nodes.big).toMatchObject({
      status: 'failed',
      error: {
        code: 'output_too_large',
        message:
          "node big: its document is 2007 bytes, over max_document_bytes (1024 bytes); nothing was written. Make the node's output smaller, or raise ingest.limits.max_document_bytes in artifact-ingest.config.yaml",
      },
    });
    expect(result.state.nodes.after?.status).toBe('skipped');
    expect(result.terminal).toMatchObject({ state: 'blocked' });
    expect(result.terminal?.reason).toContain('node big failed (output_too_large)');
    await expect(stat(path.join(projectDir, 'docs', 'big.md'))).rejects.toThrow();
    const failed = (await readEvents(projectDir, 'r1')).find((event) => event.event === 'node.failed');
    expect(failed).toMatchObject({ node_id: 'big', code: 'output_too_large' });
  });

  it('fails the node that would take the run past max_run_document_bytes, keeping what came before', async () => {
    const projectDir = await tempProject();
    const nodes = ['a', 'b', 'c', 'd'].map((id) => ({
      id,
      type: 'write_file' as const,
      content: `${id}${'-'.repeat(399)}`,
      outputPath: `docs/${id}.md`,
    }));
    const graph = defineGraph(
      'total',
      nodes.map((node, index) => ({ ...node, after: index === 0 ? [] : [nodes[index - 1]!.id] })),
    );
    const result = await runGraph({
      projectDir,
      graph,
      inputs: {},
      agentFor: () => {
        throw new Error('no agents');
      },
      runId: 'r1',
      maxRunDocumentBytes: 1000,
    });
    expect(Object.values(result.state.nodes).map((node) => node.status)).toEqual([
      'completed',
      'completed',
      'failed',
      'skipped',
    ]);
    expect(result.state.nodes.c?.error).toMatchObject({ code: 'output_too_large' });
    expect(result.state.nodes.c?.error?.message).toContain(
      "its document of 400 bytes would bring the run's documents to 1200 bytes, over max_run_document_bytes (1000 bytes)",
    );
    expect(result.state.nodes.c?.error?.message).toContain('runtime.max_run_document_bytes');
    expect((await readdir(path.join(projectDir, 'docs'))).sort()).toEqual(['a.md', 'b.md']);
    expect(result.terminal).toMatchObject({ state: 'blocked' });
    expect(await readState(projectDir, 'r1')).toEqual(result.state);
  });

  it('counts the documents a resumed run kept toward max_run_document_bytes', async () => {
    const projectDir = await tempProject();
    const graph = defineGraph('resume', [
      { id: 'a', type: 'write_file', content: 'x'.repeat(600), outputPath: 'docs/a.md' },
      { id: 'b', type: 'write_file', after: ['a'], content: '{a.output}', outputPath: 'docs/b.md' },
    ]);
    const agentFor = (): never => {
      throw new Error('no agents');
    };
    const first = await runGraph({
      projectDir,
      graph,
      inputs: {},
      agentFor,
      runId: 'r1',
      maxRunDocumentBytes: 1000,
    });
    expect(first.state.nodes.b?.error?.code).toBe('output_too_large');
    const resumed = await runGraph({
      projectDir,
      graph,
      inputs: {},
      agentFor,
      runId: 'r1',
      resume: true,
      maxRunDocumentBytes: 1000,
    });
    expect(resumed.state.nodes.a?.status).toBe('completed');
    expect(resumed.state.nodes.b?.error?.message).toContain("run's documents to 1200 bytes");
    expect(await readFile(path.join(projectDir, 'docs', 'a.md'), 'utf8')).toHaveLength(600);
  });

  it('refuses a rendered prompt over max_document_bytes before the agent is asked', async () => {
    const projectDir = await tempProject();
    let asked = 0;
    const agent = {
      name: 'counter',
      kind: 'replay' as const,
      complete: () => {
        asked += 1;
        return Promise.resolve('# reply\n');
      },
    };
    const graph = defineGraph(
      'prompt',
      [{ id: 'ask', type: 'agent_task', agent: 'counter', prompt: '{doc}{doc}', outputPath: 'docs/ask.md' }],
      { inputs: ['doc'] },
    );
    const result = await runGraph({
      projectDir,
      graph,
      inputs: { doc: 'q'.repeat(600) },
      agentFor: () => agent,
      runId: 'r1',
      ingest: { enabled: false, limits: { maxDocumentBytes: 1000 } },
    });
    expect(asked).toBe(0);
    expect(result.state.nodes.ask?.error).toEqual({
      code: 'output_too_large',
      message:
        "node ask: prompt: it would render to 1200 bytes, over the limit of 1000 bytes (max_document_bytes); nothing was written. Make the node's inputs or template smaller, or raise ingest.limits.max_document_bytes in artifact-ingest.config.yaml",
    });
  });
});
