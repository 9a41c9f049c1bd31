import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { contractSummary, renderContractDoc } from '../../src/contracts/index.js';
import { MAX_REPLY_BYTES, MAX_REPLY_ITEMS } from '../../src/mcp/index.js';
import {
  OUTSIDE_MARKERS,
  outsideRefusal,
  outsideWorkflowFixture,
} from '../helpers/outside-workflow-fixture.js';
import { CLI } from '../helpers/run-cli.js';
import { tempProject } from '../helpers/temp-project.js';
import { atScale } from '../helpers/test-scale.js';
import { callTool as call, structuredOf, textOf } from './mcp-test-client.js';

const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

/** The built binary's `mcp` command as a child process (node run with `nodeArgs`, in `env`), with an SDK client on its stdio. */
async function spawnServer(
  projectDir: string,
  nodeArgs: readonly string[] = [],
  env?: Record<string, string>,
): Promise<{ client: Client; transport: StdioClientTransport }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...nodeArgs, CLI, 'mcp', '--project', projectDir],
    stderr: 'pipe',
    ...(env === undefined ? {} : { env }),
  });
  const client = new Client({ name: 'stdio-test', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  return { client, transport };
}

describe('artifact-ingest mcp over stdio', () => {
  it('lists the tools, runs chain_of_thought to completion, and serves the format a refusal names', async () => {
    const projectDir = await tempProject();
    const { client } = await spawnServer(projectDir);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([
      'register_artefacts',
      'submit_artifact',
      'workflow_abort',
      'workflow_advance',
      'workflow_list',
      'workflow_start',
      'workflow_status',
    ]);
    await call(client, 'workflow_start', {
      workflow: 'chain_of_thought',
      inputs: { problem: 'sort a list' },
      run_id: 'cot-1',
    });
    // A refused submission says what the type requires and names the resource of its full format (issue 24).
    const refused = (await client.callTool({
      name: 'submit_artifact',
      arguments: { type: 'issues', payload: { issues: [{ id: 'I1' }] } },
    })) as CallToolResult;
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toContain(contractSummary('issues'));
    const uri = /^Full format: (\S+)$/m.exec(textOf(refused))?.[1] ?? '';
    expect((await client.listResources()).resources.map((resource) => resource.uri)).toContain(uri);
    const { contents } = await client.readResource({ uri });
    expect(contents).toEqual([{ uri, mimeType: 'text/markdown', text: renderContractDoc('issues') }]);
    await call(client, 'workflow_advance', { output: '- pick a pivot\n- partition' });
    const third = await call(client, 'workflow_advance', { output: 'Pivot: median of three.' });
    expect(third).toMatchObject({ step: 'synthesize', step_number: 3 });
    const done = await call(client, 'workflow_advance', { output: 'Quicksort.' });
    expect(done).toMatchObject({
      run_id: 'cot-1',
      status: 'complete',
      summary: {
        workflow: 'chain_of_thought',
        steps_completed: 3,
        results: { analysis_1: 'Pivot: median of three.' },
      },
    });
  });

  it('a server killed with SIGKILL mid-workflow is restarted and continues from the same step and pass', async () => {
    const projectDir = await tempProject({
      'workflows/passes.yaml':
        'name: passes\nversion: "1"\ndescription: d\nsteps:\n  - id: polish\n    type: ralph\n    n: 3\n    instructions: "Iteration {iteration} of {n}."\n  - id: last\n    instructions: "Done."\n',
    });
    const first = await spawnServer(projectDir);
    await call(first.client, 'workflow_start', { workflow: 'passes', run_id: 'p-1' });
    // The advance's result is the next status plus `ingest`, what became of its output.
    const { ingest, ...second } = await call(first.client, 'workflow_advance', { output: 'one' });
    expect(ingest).toEqual({ document: 'docs/p-1/polish-1.md', enabled: false });
    expect(second).toMatchObject({ step: 'polish', ralphIteration: 2 });
    const pid = first.transport.pid;
    expect(pid).not.toBeNull();
    process.kill(pid ?? 0, 'SIGKILL');
    const restarted = await spawnServer(projectDir);
    // No run_id: the one running workflow is found from its state.json.
    // The status adds declared versus observed of the pass so far: nothing written, nothing claimed.
    expect(await call(restarted.client, 'workflow_status')).toEqual({
      ...second,
      reconciliation: { unregistered: [], phantom: [] },
    });
    expect(await call(restarted.client, 'workflow_advance', { output: 'two' })).toMatchObject({
      ralphIteration: 3,
    });
    const state = JSON.parse(
      await readFile(path.join(projectDir, '.agent', 'runs', 'p-1', 'state.json'), 'utf8'),
    ) as Record<string, unknown>;
    expect(state).toMatchObject({ status: 'running', step: 'polish', ralphIteration: 3 });
  });

  const registered = atScale(5_000, 100_000);
  it(`answers a ${registered.toLocaleString('en')}-path register_artefacts in one bounded reply that counts what it left out`, async () => {
    const { client } = await spawnServer(await tempProject());
    await call(client, 'workflow_start', {
      workflow: 'chain_of_thought',
      inputs: { problem: 'p' },
      run_id: 'reg-1',
    });
    const paths = Array.from({ length: registered }, (_, index) => `../outside-${String(index)}.txt`);
    const result = (await client.callTool({
      name: 'register_artefacts',
      arguments: { paths },
    })) as CallToolResult;
    expect(Buffer.byteLength(JSON.stringify(result), 'utf8')).toBeLessThanOrEqual(MAX_REPLY_BYTES);
    const structured = structuredOf(result);
    expect(structured).toMatchObject({ run_id: 'reg-1', registered: [], duplicates: [] });
    expect(structured.invalid).toHaveLength(MAX_REPLY_ITEMS);
    expect(structured.left_out).toEqual({ invalid: registered - MAX_REPLY_ITEMS });
  }, 180_000);

  // Past the 4 MiB reply limit either way: npm test by half a MiB, the scale run by 3 MB.
  const outputBytes = atScale(4_700_000, 7_000_000);
  it(`takes a ${(outputBytes / 1e6).toFixed(1)} MB workflow_advance output with a 256 MiB heap and answers in bounded replies`, async () => {
    const projectDir = await tempProject();
    const { client } = await spawnServer(projectDir, ['--max-old-space-size=256']);
    await call(client, 'workflow_start', {
      workflow: 'chain_of_thought',
      inputs: { problem: 'p' },
      run_id: 'big-1',
    });
    // One sub-task per line: the next step's instructions quote the first one, the summary keeps all of it.
    const output = `${'x'.repeat(outputBytes)}\n- partition`;
    const second = await call(client, 'workflow_advance', { output });
    expect(second).toMatchObject({
      step: 'analyze_first',
      left_out: { instructions: expect.any(Number) as number },
    });
    expect(second.instructions).toMatch(
      /more characters left out: an MCP reply holds at most 4194304 bytes\]$/,
    );
    await call(client, 'workflow_advance', { output: 'Pivot: median of three.' });
    const done = await call(client, 'workflow_advance', { output: 'Quicksort.' });
    expect(done).toMatchObject({
      status: 'complete',
      left_out: { 'summary.results.decomposition': expect.any(Number) as number },
    });
    // The run keeps the whole output: only the reply was shortened.
    const state = JSON.parse(
      await readFile(path.join(projectDir, '.agent', 'runs', 'big-1', 'state.json'), 'utf8'),
    ) as { outputs: { decomposition: string } };
    expect(state.outputs.decomposition).toBe(output);
  }, 180_000);
});

describe('artifact-ingest mcp over stdio: workflow_start reads nothing outside the project (issue 23)', () => {
  it('shows neither the environment (/proc/self/environ) nor an outside file, and starts no outside workflow', async () => {
    const fixture = await outsideWorkflowFixture();
    // The SDK puts the variables it inherits (HOME, PATH ...) first: emptied, they leave the marker within the
    // first 60 characters of /proc/self/environ, which the old loader quoted in its "expected a mapping" error.
    const inherited = ['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER'];
    const env = {
      ...Object.fromEntries(inherited.map((name) => [name, ''])),
      ZQ_SERVER_MARKER: 'zq-plain-server-env',
    };
    const { client } = await spawnServer(fixture.projectDir, [], env);
    const references = ['/proc/self/environ', fixture.secretFile, fixture.evilFile, '../outside/evil.yaml'];
    for (const reference of references) {
      const result = (await client.callTool({
        name: 'workflow_start',
        arguments: { workflow: reference },
      })) as CallToolResult;
      expect(result.isError, reference).toBe(true);
      expect(textOf(result), reference).toBe(outsideRefusal(reference));
      for (const marker of [...OUTSIDE_MARKERS, 'ZQ_SERVER_MARKER', 'zq-plain-server-env']) {
        expect(textOf(result), reference).not.toContain(marker);
      }
    }
    const missing = (await client.callTool({
      name: 'workflow_start',
      arguments: { workflow: fixture.missingFile },
    })) as CallToolResult;
    expect(textOf(missing).replace(fixture.missingFile, '<ref>')).toBe(
      outsideRefusal(fixture.secretFile).replace(fixture.secretFile, '<ref>'),
    );
    await expect(readFile(path.join(fixture.projectDir, '.agent', 'runs'))).rejects.toThrow(/ENOENT/);
  });
});
