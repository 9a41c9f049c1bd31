import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach } from 'vitest';
import { createWorkflowMcpServer } from '../../src/mcp/index.js';
import type { WorkflowMcpServerOptions } from '../../src/mcp/index.js';

const open: (() => Promise<void>)[] = [];

afterEach(async () => {
  await Promise.all(open.splice(0).map((close) => close()));
});

/** A connected SDK client and what each call returned; `logs` collects the server's stderr lines. */
export interface TestSession {
  readonly client: Client;
  readonly logs: string[];
  readonly call: (tool: string, args?: Record<string, unknown>) => Promise<CallToolResult>;
  readonly close: () => Promise<void>;
}

/** A fresh server over `projectDir`, connected to an SDK `Client` through an in-memory transport pair. */
export async function connectServer(
  projectDir: string,
  options: Partial<WorkflowMcpServerOptions> = {},
): Promise<TestSession> {
  const logs: string[] = [];
  const server = createWorkflowMcpServer({
    projectDir,
    env: {},
    log: (line) => logs.push(line),
    engine: { durability: 'none' },
    ...options,
  });
  const client = new Client({ name: 'test', version: '1.0.0' });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await Promise.all([client.connect(clientTransport), server.connect(serverTransport)]);
  const close = async (): Promise<void> => {
    await client.close();
    await server.close();
  };
  open.push(close);
  return {
    client,
    logs,
    call: async (tool, args = {}) =>
      (await client.callTool({ name: tool, arguments: args })) as CallToolResult,
    close,
  };
}

/** The text of a result's first content item. */
export function textOf(result: CallToolResult): string {
  const [first] = result.content;
  if (first?.type !== 'text')
    throw new Error(`expected a text content, got ${JSON.stringify(result.content)}`);
  return first.text;
}

/** The structured content of a successful result, checked to equal its text's JSON. */
export function structuredOf(result: CallToolResult): Record<string, unknown> {
  if (result.isError === true) throw new Error(`the tool failed: ${textOf(result)}`);
  const structured = result.structuredContent;
  if (structured === undefined) throw new Error('no structuredContent');
  if (JSON.stringify(JSON.parse(textOf(result))) !== JSON.stringify(structured))
    throw new Error('the text is not the same JSON as structuredContent');
  return structured;
}

/** Calls tool `name` with `args` and returns its structured content ({@link structuredOf}: a failed call throws). */
export async function callTool(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<Record<string, unknown>> {
  return structuredOf((await client.callTool({ name, arguments: args })) as CallToolResult);
}
