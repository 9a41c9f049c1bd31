import { execFileSync } from 'node:child_process';
import { readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MCP_HELP } from '../../src/cli/mcp-command.js';
import { CONTRACT_TYPES, contractSummary, renderContractDoc } from '../../src/contracts/index.js';
import {
  OUTSIDE_MARKERS,
  outsideReferences,
  outsideRefusal,
  outsideWorkflowFixture,
} from '../helpers/outside-workflow-fixture.js';
import { tempProject } from '../helpers/temp-project.js';
import { connectServer, structuredOf, textOf } from './mcp-test-client.js';

const BUILD_WORKFLOW = `name: build
version: "1"
description: Write a file, then review it
inputs: [feature]
steps:
  - id: write
    type: action
    artefacts: true
    instructions: "Write {feature} to a file."
    save_as: notes
  - id: review
    type: action
    instructions: "Review {notes}."
`;

const TOOLS = [
  'register_artefacts',
  'submit_artifact',
  'workflow_abort',
  'workflow_advance',
  'workflow_list',
  'workflow_start',
  'workflow_status',
];

async function buildProject(): Promise<string> {
  return tempProject({ 'workflows/build.yaml': BUILD_WORKFLOW });
}

async function stateText(projectDir: string, runId: string): Promise<string> {
  return readFile(path.join(projectDir, '.agent', 'runs', runId, 'state.json'), 'utf8');
}

describe('createWorkflowMcpServer', () => {
  it('lists the seven tools, each with a description, an input schema and an output schema', async () => {
    const { client } = await connectServer(await buildProject());
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(TOOLS);
    // `artifact-ingest mcp --help` names every tool the server registers, and no other.
    const named = /Tools: ([^.]*)\./s
      .exec(MCP_HELP)?.[1]
      ?.split(/,\s*/)
      .map((name) => name.trim());
    expect(named?.sort()).toEqual(TOOLS);
    for (const tool of tools) {
      expect(tool.description?.length).toBeGreaterThan(20);
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.outputSchema?.type).toBe('object');
    }
    const register = tools.find((tool) => tool.name === 'register_artefacts');
    // paths is checked by the engine, yet the client is told it is an array of strings.
    expect(register?.inputSchema.properties?.paths).toMatchObject({
      type: 'array',
      items: { type: 'string' },
    });
    // payload is any JSON value to zod (the canonical path judges it), an object to the client, and required.
    const submit = tools.find((tool) => tool.name === 'submit_artifact');
    expect(submit?.inputSchema.properties?.payload).toMatchObject({ type: 'object' });
    expect(submit?.inputSchema.required).toEqual(expect.arrayContaining(['type', 'payload']));
    expect(submit?.description).toMatch(/before workflow_advance/);
  });

  it('serves the format doc of each contract type as the resource its summary names (issue 24)', async () => {
    const { client } = await connectServer(await buildProject());
    const { resources } = await client.listResources();
    const uris = CONTRACT_TYPES.map((type) => {
      const named = /^Full format: (\S+)$/m.exec(contractSummary(type))?.[1];
      expect(named).toBeDefined();
      return String(named);
    });
    expect(resources.map((resource) => resource.uri)).toEqual(uris);
    for (const [index, type] of CONTRACT_TYPES.entries()) {
      expect(resources[index]).toMatchObject({ name: type, mimeType: 'text/markdown' });
      const { contents } = await client.readResource({ uri: uris[index] ?? '' });
      expect(contents).toEqual([
        { uri: uris[index], mimeType: 'text/markdown', text: renderContractDoc(type) },
      ]);
    }
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates).toEqual([
      expect.objectContaining({ name: 'contract', uriTemplate: 'artifact-ingest://contracts/{type}' }),
    ]);
  });

  it.each([
    [
      'a misspelt type',
      'artifact-ingest://contracts/isues',
      /did you mean artifact-ingest:\/\/contracts\/issues\?/,
    ],
    [
      'a type of 100,000 letters',
      `artifact-ingest://contracts/${'x'.repeat(100_000)}`,
      /one of product_spec, /,
    ],
    ['another scheme', 'file:///etc/passwd', /Resource file:\/\/\/etc\/passwd not found/],
  ])('answers a read of %s with -32602 and what to read instead', async (_, uri, says) => {
    const { client } = await connectServer(await buildProject());
    const refused = await client.readResource({ uri }).then(
      () => undefined,
      (error: unknown) => error as { code?: number; message?: string },
    );
    expect(refused?.code).toBe(-32602);
    expect(refused?.message).toMatch(says);
    expect(refused?.message?.length).toBeLessThan(1_000);
  });

  it('still serves the format docs when started with a startup problem, which reads nothing of the project', async () => {
    const { client, call } = await connectServer('/nonexistent/project', {
      startupProblem: 'the project folder /nonexistent/project does not exist',
    });
    expect((await call('workflow_list')).isError).toBe(true);
    expect((await client.listResources()).resources).toHaveLength(CONTRACT_TYPES.length);
    const { contents } = await client.readResource({ uri: 'artifact-ingest://contracts/issues' });
    expect(contents[0]).toMatchObject({ text: renderContractDoc('issues') });
  });

  it('workflow_list returns the project workflows and the built-ins', async () => {
    const { call } = await connectServer(await buildProject());
    const list = structuredOf(await call('workflow_list'));
    expect(list.workflows).toEqual(
      expect.arrayContaining([
        {
          name: 'build',
          version: '1',
          description: 'Write a file, then review it',
          steps: 2,
          inputs: ['feature'],
        },
        expect.objectContaining({ name: 'chain_of_thought', inputs: ['problem'] }),
        expect.objectContaining({ name: 'feature-dev' }),
      ]),
    );
  });

  it('workflow_list lists the good workflows and the built-ins beside each broken file and its error (issue 24)', async () => {
    const projectDir = await tempProject({
      'workflows/build.yaml': BUILD_WORKFLOW,
      'workflows/bad.yaml': 'name: x\nsteps: oops\n',
    });
    const { client, call } = await connectServer(projectDir);
    // Listing the tools first makes the SDK client validate each result against the tool's output schema.
    await client.listTools();
    const result = await call('workflow_list');
    expect(result.isError).toBeUndefined();
    const list = structuredOf(result);
    expect((list.workflows as { name: string }[]).map((workflow) => workflow.name)).toEqual([
      'build',
      'chain_of_thought',
      'feature-dev',
    ]);
    expect(list.broken).toEqual([
      {
        name: 'bad',
        file: 'workflows/bad.yaml',
        error: expect.stringContaining(`${path.join(projectDir, 'workflows', 'bad.yaml')}:2:`) as unknown,
      },
    ]);
    // The same text workflow_start gives for it.
    const started = await call('workflow_start', { workflow: 'bad' });
    expect(started.isError).toBe(true);
    expect(textOf(started)).toContain((list.broken as { error: string }[])[0]?.error);
  });

  it('workflow_start, workflow_status, workflow_advance and workflow_abort drive a run', async () => {
    const projectDir = await buildProject();
    const { call } = await connectServer(projectDir);
    const started = structuredOf(
      await call('workflow_start', { workflow: 'build', inputs: { feature: 'a parser' }, run_id: 'b-1' }),
    );
    expect(started).toMatchObject({
      run_id: 'b-1',
      status: 'running',
      step: 'write',
      step_number: 1,
      total_steps: 2,
    });
    expect(started.instructions).toContain('Write a parser to a file.');
    expect(started.instructions).toContain('you MUST call the `register_artefacts` tool');
    // The status is the start's response plus declared versus observed of the pass so far.
    expect(structuredOf(await call('workflow_status', {}))).toEqual({
      ...started,
      reconciliation: { unregistered: [], phantom: [] },
    });
    const next = structuredOf(await call('workflow_advance', { output: 'notes on a parser' }));
    expect(next).toMatchObject({ step: 'review', instructions: 'Review notes on a parser.' });
    const aborted = structuredOf(await call('workflow_abort', { run_id: 'b-1', reason: 'enough' }));
    expect(aborted).toMatchObject({ run_id: 'b-1', status: 'aborted', step: 'review' });
    expect(JSON.parse(await stateText(projectDir, 'b-1'))).toMatchObject({ status: 'aborted' });
  });

  it.each([
    ['workflow_status', {}],
    ['workflow_advance', { output: 'x' }],
    ['workflow_abort', {}],
    ['register_artefacts', { paths: ['a.md'] }],
  ])('%s without a running workflow says to call workflow_start first', async (tool, args) => {
    const { call } = await connectServer(await buildProject());
    const result = await call(tool, args);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe('Workflow not started. Call workflow_start first.');
  });

  it.each([
    ['paths is not an array', { paths: 'notes.md' }],
    ['a path is not a string', { paths: ['notes.md', 3] }],
    ['paths is missing', {}],
  ])('register_artefacts refuses when %s, and the state is unchanged', async (_case, args) => {
    const projectDir = await buildProject();
    const { call } = await connectServer(projectDir);
    structuredOf(
      await call('workflow_start', { workflow: 'build', inputs: { feature: 'x' }, run_id: 'b-1' }),
    );
    const before = await stateText(projectDir, 'b-1');
    const result = await call('register_artefacts', args);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('paths must be an array of strings');
    expect(await stateText(projectDir, 'b-1')).toBe(before);
  });

  it.each([
    [
      'a missing workflow input',
      { workflow: 'build' },
      /missing input feature: .*call workflow_start with inputs: \{ "feature": "\.\.\." \}/,
    ],
    ['an undeclared input', { workflow: 'build', inputs: { feature: 'x', featur: 'y' } }, /featur/],
    ['an unknown workflow', { workflow: 'biuld' }, /no workflow named "biuld".*did you mean "build"\?/],
    ['an unknown template variable', { workflow: 'broken' }, /nope/],
    [
      'a run_id that is not an id',
      { workflow: 'build', inputs: { feature: 'x' }, run_id: '../up' },
      /run_id|id/,
    ],
    ['no workflow at all', {}, /workflow/],
  ])('workflow_start refuses %s with a message and writes no run', async (_case, args, message) => {
    const projectDir = await tempProject({
      'workflows/build.yaml': BUILD_WORKFLOW,
      'workflows/broken.yaml':
        'name: broken\nversion: "1"\ndescription: d\nsteps:\n  - id: one\n    instructions: "Use {nope}."\n',
    });
    const { call } = await connectServer(projectDir);
    const result = await call('workflow_start', args);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(message);
    expect(textOf(result)).not.toMatch(/\n\s+at /);
    await expect(stat(path.join(projectDir, '.agent', 'runs'))).rejects.toThrow();
  });

  it.each([
    ['an unknown run', 'workflow_status', { run_id: 'nope-1' }, /no run "nope-1"/],
    ['a misspelt argument', 'workflow_status', { runId: 'b-1' }, /runId/],
    ['advancing a save_as step without output', 'workflow_advance', {}, /output/],
  ])('refuses %s as an isError result', async (_case, tool, args, message) => {
    const projectDir = await buildProject();
    const { call } = await connectServer(projectDir);
    structuredOf(
      await call('workflow_start', { workflow: 'build', inputs: { feature: 'x' }, run_id: 'b-1' }),
    );
    const before = await stateText(projectDir, 'b-1');
    const result = await call(tool, args);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(message);
    expect(await stateText(projectDir, 'b-1')).toBe(before);
  });

  it('names the running workflows when several run and no run_id is given', async () => {
    const { call } = await connectServer(await buildProject());
    for (const runId of ['b-1', 'b-2'])
      structuredOf(
        await call('workflow_start', { workflow: 'build', inputs: { feature: runId }, run_id: runId }),
      );
    const result = await call('workflow_status', {});
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/b-1.*b-2/s);
  });

  it('turns an unexpected failure into an isError result without a stack, and logs it to stderr', async () => {
    const projectDir = await buildProject();
    // A file where the runs folder belongs: the engine cannot create the run.
    await writeFile(path.join(projectDir, '.agent'), 'not a folder');
    const { call, logs } = await connectServer(projectDir);
    const result = await call('workflow_start', {
      workflow: 'build',
      inputs: { feature: 'x' },
      run_id: 'b-1',
    });
    expect(result.isError).toBe(true);
    expect(textOf(result)).not.toMatch(/\n\s+at /);
    expect(logs.join('\n') + textOf(result)).not.toBe('');
  });
});

describe('workflow_start over MCP: nothing outside the project is read (issue 23)', () => {
  it('refuses every outside reference with one text, starts nothing and echoes no byte of any file', async () => {
    const fixture = await outsideWorkflowFixture();
    const { call } = await connectServer(fixture.projectDir);
    for (const [what, reference] of outsideReferences(fixture)) {
      const result = await call('workflow_start', { workflow: reference, run_id: 'evil-run' });
      expect(result.isError, what).toBe(true);
      expect(textOf(result), what).toBe(outsideRefusal(reference));
      for (const marker of OUTSIDE_MARKERS) expect(textOf(result), what).not.toContain(marker);
    }
    await expect(stat(path.join(fixture.projectDir, '.agent'))).rejects.toThrow(/ENOENT/);
  });

  it('answers a FIFO at workflows/x.yaml at once with an error, and keeps serving', async () => {
    const projectDir = await tempProject({ 'workflows/build.yaml': BUILD_WORKFLOW });
    execFileSync('mkfifo', [path.join(projectDir, 'workflows', 'x.yaml')]);
    const { call } = await connectServer(projectDir);
    const result = await call('workflow_start', { workflow: 'x' });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/x\.yaml: is not a regular file/);
    structuredOf(await call('workflow_start', { workflow: 'build', inputs: { feature: 'f' } }));
  });

  it('reports a broken project workflow by line and column, showing no secret of the bad line', async () => {
    const secret = 'ghp_McpBrokenSecretMcpBrokenSecretMcpBroken12';
    const projectDir = await tempProject({
      'workflows/leaky.yaml': `name: leaky\nversion: "1"\nsteps:\n  - id: a\n    instructions: x\n    ? |\n      ${secret}\n      zq-next-line\n    : v\n`,
    });
    const { call } = await connectServer(projectDir);
    const text = textOf(await call('workflow_start', { workflow: 'leaky' }));
    expect(text).toMatch(/leaky\.yaml:6:7: steps\[0\]\["\[REDACTED\]…"\]: unknown key "\[REDACTED\]…"/);
    expect(text).not.toContain(secret);
    expect(text).not.toContain('zq-next-line');
  });
});
