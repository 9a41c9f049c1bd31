import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempProject } from '../helpers/temp-project.js';
import { connectServer, structuredOf, textOf } from './mcp-test-client.js';

// Seed 000's integration test: an artefacts step, a file the agent creates, registration, status, advance,
// and the artefacts still there afterwards, for a new server too.
const ARTEFACT_WORKFLOW = `name: artefact-flow
version: "1"
description: Create a file and register it, then review
inputs: [topic]
steps:
  - id: create
    type: action
    artefacts: true
    require_registration: true
    instructions: "Write a note about {topic} to a file."
    save_as: note
  - id: review
    type: action
    instructions: "Review:\\n{foreach a in artefacts}\\n- {a}\\n{/foreach}"
    complete: true
`;

const recordsOf = async (projectDir: string, runId: string): Promise<Record<string, unknown>[]> =>
  (await readFile(path.join(projectDir, '.agent', 'runs', runId, 'artifacts.jsonl'), 'utf8'))
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe('seed 000: register_artefacts over MCP', () => {
  it('start, create a file, register it, status shows it, advance, and the artefacts persist', async () => {
    const projectDir = await tempProject({ 'workflows/artefact-flow.yaml': ARTEFACT_WORKFLOW });
    const { call } = await connectServer(projectDir);
    const started = structuredOf(
      await call('workflow_start', { workflow: 'artefact-flow', inputs: { topic: 'MCP' }, run_id: 'a-1' }),
    );
    expect(started.artefacts).toEqual([]);
    expect(started.instructions).toContain(
      'You are expected to create output files during this step. Once you have created a file, you MUST call the `register_artefacts` tool with the path to the file(s). Do not stop the step without registering your work.',
    );

    await mkdir(path.join(projectDir, 'notes'));
    await writeFile(path.join(projectDir, 'notes', 'mcp.md'), '# MCP\n');

    // Not registered yet: the write is observed, and require_registration refuses the advance.
    const before = structuredOf(await call('workflow_status', {}));
    expect(before.reconciliation).toEqual({ unregistered: ['notes/mcp.md'], phantom: [] });
    const refused = await call('workflow_advance', { output: 'the note' });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toContain('notes/mcp.md');

    const registered = structuredOf(await call('register_artefacts', { paths: ['notes/mcp.md'] }));
    expect(registered).toEqual({ run_id: 'a-1', registered: ['notes/mcp.md'], duplicates: [], invalid: [] });
    const status = structuredOf(await call('workflow_status', {}));
    expect(status.artefacts).toEqual(['notes/mcp.md']);
    expect(status.reconciliation).toEqual({ unregistered: [], phantom: [] });

    const review = structuredOf(await call('workflow_advance', { output: 'the note' }));
    expect(review).toMatchObject({ step: 'review', artefacts: ['notes/mcp.md'] });
    expect(review.instructions).toContain('- notes/mcp.md');

    // A new server (the assistant restarted) sees the same artefacts, and the file was recorded.
    const { call: callAgain } = await connectServer(projectDir);
    expect(structuredOf(await callAgain('workflow_status', {})).artefacts).toEqual(['notes/mcp.md']);
    const records = await recordsOf(projectDir, 'a-1');
    expect(records.filter((record) => record.path === 'notes/mcp.md')).toEqual([
      expect.objectContaining({
        type: 'file',
        metadata: expect.objectContaining({ source: 'register' }) as unknown,
      }),
    ]);
    const done = structuredOf(await callAgain('workflow_advance', { output: 'looks good' }));
    expect(done).toMatchObject({ run_id: 'a-1', status: 'complete' });
  });

  it('refuses paths that are not an array, a non-string path and hostile paths, recording nothing', async () => {
    const projectDir = await tempProject({ 'workflows/artefact-flow.yaml': ARTEFACT_WORKFLOW });
    const { call } = await connectServer(projectDir);
    await call('workflow_start', { workflow: 'artefact-flow', inputs: { topic: 'x' }, run_id: 'a-2' });
    const state = await readFile(path.join(projectDir, '.agent', 'runs', 'a-2', 'state.json'), 'utf8');

    for (const paths of ['notes/x.md', ['ok.md', 42]]) {
      const result = await call('register_artefacts', { paths });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain('paths must be an array of strings');
    }
    const hostile = structuredOf(
      await call('register_artefacts', { paths: ['../outside.txt', '/etc/passwd', '.git/config'] }),
    );
    expect(hostile.registered).toEqual([]);
    expect((hostile.invalid as { path: string }[]).map((entry) => entry.path)).toEqual([
      '../outside.txt',
      '/etc/passwd',
      '.git/config',
    ]);
    expect(await readFile(path.join(projectDir, '.agent', 'runs', 'a-2', 'state.json'), 'utf8')).toBe(state);
  });
});

describe('seed 003: several workflows at once', () => {
  it('two runs advance independently, each to its own completion and summary', async () => {
    const projectDir = await tempProject();
    const { call } = await connectServer(projectDir);
    for (const run_id of ['c-1', 'c-2']) {
      structuredOf(
        await call('workflow_start', { workflow: 'chain_of_thought', inputs: { problem: run_id }, run_id }),
      );
    }
    // Without run_id the server cannot tell them apart, and says which runs it knows.
    const ambiguous = await call('workflow_status', {});
    expect(ambiguous.isError).toBe(true);
    expect(textOf(ambiguous)).toMatch(/c-1.*c-2/s);

    const finish = async (run_id: string): Promise<Record<string, unknown>> => {
      let result = structuredOf(await call('workflow_status', { run_id }));
      for (let turn = 0; turn < 20 && result.status === 'running'; turn += 1) {
        result = structuredOf(
          await call('workflow_advance', { run_id, output: `1. first part of ${run_id}\n2. second part` }),
        );
      }
      return result;
    };
    // Interleave: one step of c-1, then all of c-2, then the rest of c-1.
    structuredOf(await call('workflow_advance', { run_id: 'c-1', output: '1. a\n2. b' }));
    const second = await finish('c-2');
    const first = await finish('c-1');
    for (const [run_id, done] of [
      ['c-1', first],
      ['c-2', second],
    ] as const) {
      expect(done).toMatchObject({ run_id, status: 'complete' });
      expect(done.summary).toMatchObject({ workflow: 'chain_of_thought' });
    }
    expect(JSON.stringify((first.summary as { results: unknown }).results)).not.toContain('c-2');
  });
});
