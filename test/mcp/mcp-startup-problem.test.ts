import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { renderContractDoc } from '../../src/contracts/index.js';
import { CLI, runProgram } from '../helpers/run-cli.js';
import { tempProject } from '../helpers/temp-project.js';
import { textOf } from './mcp-test-client.js';
import { spawnRawMcp } from './raw-mcp-child.js';
import type { RawReply } from './raw-mcp-child.js';

/** A valid call of each tool: what a client would send, so only the startup problem can refuse it. */
const CALLS: readonly (readonly [string, Record<string, unknown>])[] = [
  ['workflow_list', {}],
  ['workflow_start', { workflow: 'chain_of_thought', inputs: { problem: 'sort a list' } }],
  ['workflow_status', {}],
  ['workflow_advance', { output: 'done' }],
  ['register_artefacts', { paths: ['notes.md'] }],
  ['workflow_abort', {}],
  ['submit_artifact', { type: 'issues', payload: {} }],
];

/** Every file and folder under `dir`, relative, sorted. */
async function tree(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true });
  return entries.sort();
}

/** The text of an isError tool result a raw reply carries, or a failure naming what came instead. */
function errorTextOf(reply: RawReply): string {
  const result = reply.result as CallToolResult | undefined;
  expect(result?.isError, JSON.stringify(reply)).toBe(true);
  return textOf(result as CallToolResult);
}

const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

let healthyTools: unknown;
let healthyResources: unknown;
beforeAll(async () => {
  const server = await spawnRawMcp(await tempProject(), [], { keepAcrossTests: true });
  healthyTools = (await server.request('tools/list')).result;
  healthyResources = (await server.request('resources/list')).result;
  await server.endInput();
});

interface BrokenStart {
  readonly name: string;
  /** The `--project` to start with, made in a fresh temporary folder `root`. */
  readonly project: (root: string) => Promise<string>;
  /** What every tool call and stderr must say, given the `--project` path. */
  readonly says: (project: string) => readonly string[];
}

const BROKEN: readonly BrokenStart[] = [
  {
    name: 'a --project that does not exist',
    project: (root) => Promise.resolve(path.join(root, 'missing')),
    says: (project) => [
      `the project folder ${project} does not exist`,
      'start the server with --project pointing at your project',
    ],
  },
  {
    name: 'a --project that is a file',
    project: (root) => Promise.resolve(path.join(root, 'notes.md')),
    says: (project) => [
      `the project folder ${project} is not a folder`,
      'start the server with --project pointing at your project',
    ],
  },
  {
    name: 'a config that is not YAML',
    project: () => tempProject({ 'artifact-ingest.config.yaml': 'ingest:\n  fail_mode: [unclosed\n' }),
    says: (project) => [
      'invalid configuration (1 problem)',
      `${path.join(project, 'artifact-ingest.config.yaml')}:`,
      'YAML syntax error',
      'restart the MCP server',
    ],
  },
  {
    name: 'a config with an unknown key',
    project: () => tempProject({ 'artifact-ingest.config.yaml': 'ingset:\n  enabled: true\n' }),
    says: (project) => [
      `${path.join(project, 'artifact-ingest.config.yaml')}:1:1: ingset: unknown key "ingset"; did you mean "ingest"?`,
      'restart the MCP server',
    ],
  },
];

describe('artifact-ingest mcp started on a missing project or a broken config (issue 24)', () => {
  it.each(BROKEN)(
    '$name: initialize, tools/list and the contract formats as usual, every tool call an isError naming the problem and the fix',
    async ({ project, says }) => {
      const root = await tempProject({ 'notes.md': 'my notes\n' });
      const projectDir = await project(root);
      const before = { root: await tree(root), project: await tree(projectDir).catch(() => null) };
      // spawnRawMcp fails unless initialize answers with a result.
      const server = await spawnRawMcp(projectDir);
      expect((await server.request('tools/list')).result).toEqual(healthyTools);
      // The format docs are the package's, not the project's: served all the same.
      expect((await server.request('resources/list')).result).toEqual(healthyResources);
      const read = await server.request('resources/read', { uri: 'artifact-ingest://contracts/issues' });
      expect(read.result).toEqual({
        contents: [
          {
            uri: 'artifact-ingest://contracts/issues',
            mimeType: 'text/markdown',
            text: renderContractDoc('issues'),
          },
        ],
      });
      for (const [name, args] of CALLS) {
        const text = errorTextOf(await server.request('tools/call', { name, arguments: args }));
        for (const part of says(projectDir)) expect(text, name).toContain(part);
      }
      // Still serving after the refusals.
      expect((await server.request('ping')).result).toEqual({});
      expect(await server.endInput()).toBe(2);
      // Said once on stderr at start.
      const first = says(projectDir)[0] ?? '';
      expect(server.stderr().split(first)).toHaveLength(2);
      // Nothing written: no .agent/, no run, the file left alone.
      expect({ root: await tree(root), project: await tree(projectDir).catch(() => null) }).toEqual(before);
    },
  );

  it('an SDK client (as the MCP Inspector) connects and sees the problem in the tool result, not "Connection closed"', async () => {
    const projectDir = path.join(await tempProject(), 'missing');
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'mcp', '--project', projectDir],
      stderr: 'pipe',
    });
    const client = new Client({ name: 'inspector-like', version: '1.0.0' });
    await client.connect(transport);
    clients.push(client);
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(7);
    const result = (await client.callTool({ name: 'workflow_list', arguments: {} })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain(`the project folder ${projectDir} does not exist`);
  });

  it('a usage error still exits 2 at once', async () => {
    const result = await runProgram(process.execPath, [CLI, 'mcp', 'extra'], { input: '' });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('mcp takes no arguments, got extra');
  });
});
