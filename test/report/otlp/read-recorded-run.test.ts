import { existsSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readRecordedRun } from '../../../src/report/index.js';
import { createMemoryStore, ingestDocument, openProject } from '../../../src/index.js';
import { createOpenAiAgent, createReplayAgent, runGraph } from '../../../src/runtime/index.js';
import type { Agent } from '../../../src/runtime/index.js';
import {
  agentSpanName,
  ATTR,
  FILE_EVENT,
  GEN_AI,
  INVOKE_AGENT,
  runSpansOf,
} from '../../../src/telemetry/index.js';
import type { OtlpKeyValue, OtlpTraceRequest, TraceSpan } from '../../../src/telemetry/index.js';
import { graphOf, writeReplies } from '../../bench/graph-runs.js';
import { runCli } from '../../helpers/run-cli.js';
import { startStubServer } from '../../helpers/stub-http-server.js';
import type { StubServer } from '../../helpers/stub-http-server.js';
import { fileBlock, readEvents, tempProject } from '../../helpers/temp-project.js';
import {
  artifactDocument,
  DEVELOPMENT_RESULT,
  developGraph,
} from '../../runtime/run/fixtures/contract-fixtures.js';

const scratch: string[] = [];
const servers: StubServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
  await Promise.all(scratch.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** What the chat-completions stand-in answers to its n-th request (0-based). */
interface ChatAnswer {
  /** An HTTP status other than 200: the answer is a refusal. */
  readonly status?: number;
  readonly content: string;
  readonly model?: string;
  readonly usage?: { readonly prompt_tokens: number; readonly completion_tokens: number };
}

/** An OpenAI-compatible chat-completions server on 127.0.0.1 answering request n with `answers[n]`. */
async function chatServer(answers: readonly ChatAnswer[]): Promise<StubServer> {
  const server = await startStubServer((_, n, response: ServerResponse) => {
    const answer = answers[n];
    if (answer === undefined) throw new Error(`the chat server got an unplanned request ${String(n + 1)}`);
    response.writeHead(answer.status ?? 200, { 'content-type': 'application/json' });
    response.end(
      JSON.stringify({
        id: `chatcmpl-${String(n + 1)}`,
        object: 'chat.completion',
        ...(answer.model === undefined ? {} : { model: answer.model }),
        choices: [
          { index: 0, message: { role: 'assistant', content: answer.content }, finish_reason: 'stop' },
        ],
        ...(answer.usage === undefined ? {} : { usage: answer.usage }),
      }),
    );
    return undefined;
  });
  servers.push(server);
  return server;
}

function openAiAgent(name: string, server: StubServer): Agent {
  return createOpenAiAgent(
    name,
    {
      kind: 'openai',
      baseURL: `${server.url}/v1`,
      model: 'stub-model',
      apiKeyEnv: 'STUB_API_KEY',
      timeoutMs: 5000,
      maxRetries: 0,
    },
    { env: { STUB_API_KEY: 'k3y-plain-0123456789-never-shown' } },
  );
}

const USAGE_KEYS: readonly string[] = [
  GEN_AI.providerName,
  GEN_AI.requestModel,
  GEN_AI.responseModel,
  GEN_AI.inputTokens,
  GEN_AI.outputTokens,
];

/** The GenAI model and usage attributes of a span, those it has. */
function usageOf(span: TraceSpan | undefined): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(span?.attributes ?? {}).filter(([key]) => USAGE_KEYS.includes(key)),
  );
}

function attribute(attributes: readonly OtlpKeyValue[], key: string): unknown {
  const value = attributes.find((entry) => entry.key === key)?.value;
  return value === undefined ? undefined : Object.values(value)[0];
}

describe('readRecordedRun', () => {
  it('reads a run through the store port: a project whose runs are kept in a memory store', async () => {
    const dir = await tempProject({
      'docs/a.md': `# a\n\n${fileBlock('ts', 'src/x.ts', 'export const x = 1;\n')}`,
    });
    scratch.push(dir);
    const project = openProject(dir, { store: createMemoryStore() });
    await ingestDocument({ projectDir: project, docPath: 'docs/a.md', runId: 'r1', nodeId: 'n1' });
    await writeFile(
      path.join(dir, 'docs/a.md'),
      `# a\n\n${fileBlock('ts', 'src/x.ts', 'export const x = 2;\n')}`,
    );
    await ingestDocument({ projectDir: project, docPath: 'docs/a.md', runId: 'r1', nodeId: 'n2' });

    const { recorded, problems } = await readRecordedRun(project, 'r1');
    expect(problems).toEqual([]);
    expect(existsSync(path.join(dir, '.agent'))).toBe(false);
    expect(recorded.steps.map((step) => [step.id, step.ingest?.startedAt === undefined])).toEqual([
      ['n1', false],
      ['n2', false],
    ]);
    const spans = runSpansOf(recorded);
    const root = spans.find((span) => span.parentSpanId === null);
    expect(root?.attributes[ATTR.runKind]).toBe('ingest');
    const ingests = spans.filter((span) => span.name === 'ingest docs/a.md');
    expect(ingests).toHaveLength(2);
    expect(
      ingests.map((span) => span.events.map((event) => [event.name, event.attributes[ATTR.fileStatus]])),
    ).toEqual([[[FILE_EVENT, 'written']], [[FILE_EVENT, 'written']]]);
    // The ingest's times are its events', inside its step.
    for (const ingest of ingests)
      expect(Date.parse(ingest.endTime)).toBeGreaterThanOrEqual(Date.parse(ingest.startTime));
  });
});

describe('readRecordedRun: agent usage', () => {
  it('records what the openai agent reported as agent.usage, and export otlp puts it on the invoke_agent span', async () => {
    const server = await chatServer([
      {
        content: '# Part 1\n',
        model: 'stub-model-2026-01-01',
        usage: { prompt_tokens: 123, completion_tokens: 45 },
      },
    ]);
    const projectDir = await tempProject();
    scratch.push(projectDir);
    const result = await runGraph({
      projectDir,
      graph: graphOf('chain', 1),
      inputs: { goal: 'usage' },
      agentFor: () => openAiAgent('cloud', server),
      runId: 'usage',
    });
    expect(result.status).toBe('completed');
    expect(server.requests).toHaveLength(1);

    const usages = (await readEvents(projectDir, 'usage')).filter(
      (event) => event['event'] === 'agent.usage',
    );
    expect(usages).toHaveLength(1);
    expect(usages[0]).toMatchObject({
      level: 'INFO',
      node_id: 'n1',
      attempt: 1,
      agent: 'cloud',
      provider: 'openai',
      request_model: 'stub-model',
      model: 'stub-model-2026-01-01',
      input_tokens: 123,
      output_tokens: 45,
    });
    expect(JSON.stringify(usages)).not.toContain('k3y-plain');

    const { recorded, problems } = await readRecordedRun(projectDir, 'usage');
    expect(problems).toEqual([]);
    expect(recorded.steps[0]?.agentCall).toEqual({
      provider: 'openai',
      requestModel: 'stub-model',
      responseModel: 'stub-model-2026-01-01',
      inputTokens: 123,
      outputTokens: 45,
    });
    const agentSpan = runSpansOf(recorded).find((span) => span.name === agentSpanName('cloud'));
    expect(agentSpan?.attributes[GEN_AI.operationName]).toBe(INVOKE_AGENT);
    expect(usageOf(agentSpan)).toEqual({
      [GEN_AI.providerName]: 'openai',
      [GEN_AI.requestModel]: 'stub-model',
      [GEN_AI.responseModel]: 'stub-model-2026-01-01',
      [GEN_AI.inputTokens]: 123,
      [GEN_AI.outputTokens]: 45,
    });

    // The CLI's `export otlp` prints the same attributes as OTLP/JSON.
    const cli = await runCli(['export', 'otlp', 'usage', '--project', projectDir], {
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: '', OTEL_EXPORTER_OTLP_HEADERS: '' },
    });
    expect(cli.stderr).toBe('');
    expect(cli.code).toBe(0);
    const request = JSON.parse(cli.stdout) as OtlpTraceRequest;
    const printed = request.resourceSpans
      .flatMap((resource) => resource.scopeSpans.flatMap((scope) => scope.spans))
      .find((span) => span.name === agentSpanName('cloud'));
    const printedAttributes = printed?.attributes ?? [];
    expect(attribute(printedAttributes, GEN_AI.responseModel)).toBe('stub-model-2026-01-01');
    expect(Number(attribute(printedAttributes, GEN_AI.inputTokens))).toBe(123);
    expect(Number(attribute(printedAttributes, GEN_AI.outputTokens))).toBe(45);
    expect(attribute(printedAttributes, GEN_AI.providerName)).toBe('openai');
  });

  it("gives each ask of a contract node its own call's usage, matched by attempt", async () => {
    const server = await chatServer([
      {
        content: artifactDocument('development_result', { ...DEVELOPMENT_RESULT, outcome: 'finished' }),
        model: 'stub-model-a',
        usage: { prompt_tokens: 10, completion_tokens: 20 },
      },
      {
        content: artifactDocument('development_result', DEVELOPMENT_RESULT),
        model: 'stub-model-b',
        usage: { prompt_tokens: 30, completion_tokens: 40 },
      },
    ]);
    const projectDir = await tempProject();
    scratch.push(projectDir);
    const result = await runGraph({
      projectDir,
      graph: developGraph(),
      inputs: {},
      agentFor: () => openAiAgent('builder', server),
      runId: 'fixed',
      ingest: { enabled: true, durability: 'none' },
    });
    expect(result.state.nodes.develop).toMatchObject({ status: 'completed', attempts: 2 });

    const usages = (await readEvents(projectDir, 'fixed')).filter(
      (event) => event['event'] === 'agent.usage',
    );
    expect(usages.map((event) => [event['attempt'], event['model'], event['input_tokens']])).toEqual([
      [1, 'stub-model-a', 10],
      [2, 'stub-model-b', 30],
    ]);
    const { recorded } = await readRecordedRun(projectDir, 'fixed');
    const spans = runSpansOf(recorded).filter((span) => span.name === agentSpanName('builder'));
    expect(
      spans.map((span) => [span.attributes[GEN_AI.responseModel], span.attributes[GEN_AI.outputTokens]]),
    ).toEqual([
      ['stub-model-a', 20],
      ['stub-model-b', 40],
    ]);
  });

  it("matches a resumed node's call by the node's attempt, not the ask within it", async () => {
    const server = await chatServer([
      { status: 400, content: 'refused' },
      { content: '# Part 1\n', model: 'stub-model-r', usage: { prompt_tokens: 5, completion_tokens: 6 } },
    ]);
    const projectDir = await tempProject();
    scratch.push(projectDir);
    const run = (resume: boolean) =>
      runGraph({
        projectDir,
        graph: graphOf('chain', 1),
        inputs: { goal: 'usage' },
        agentFor: () => openAiAgent('cloud', server),
        runId: 'resumed',
        resume,
      });
    expect((await run(false)).status).toBe('failed');
    const resumed = await run(true);
    expect(resumed.status).toBe('completed');
    expect(resumed.state.nodes.n1).toMatchObject({ status: 'completed', attempts: 2 });

    const usages = (await readEvents(projectDir, 'resumed')).filter(
      (event) => event['event'] === 'agent.usage',
    );
    expect(usages.map((event) => [event['attempt'], event['model']])).toEqual([[2, 'stub-model-r']]);
    const { recorded } = await readRecordedRun(projectDir, 'resumed');
    expect(recorded.steps.map((step) => [step.attempt, step.agentCall?.responseModel])).toEqual([
      [1, undefined],
      [2, 'stub-model-r'],
    ]);
    const spans = runSpansOf(recorded).filter((span) => span.name === agentSpanName('cloud'));
    expect(spans.map((span) => span.attributes[GEN_AI.inputTokens])).toEqual([undefined, 5]);
  });

  it('writes no agent.usage for an answer that names no model and counts no tokens', async () => {
    const server = await chatServer([{ content: '# Part 1\n' }]);
    const projectDir = await tempProject();
    scratch.push(projectDir);
    await runGraph({
      projectDir,
      graph: graphOf('chain', 1),
      inputs: { goal: 'usage' },
      agentFor: () => openAiAgent('cloud', server),
      runId: 'silent',
    });
    const events = await readEvents(projectDir, 'silent');
    expect(events.some((event) => event['event'] === 'node.completed')).toBe(true);
    expect(events.some((event) => event['event'] === 'agent.usage')).toBe(false);
    const { recorded } = await readRecordedRun(projectDir, 'silent');
    expect(recorded.steps[0]?.agentCall).toBeUndefined();
  });

  it('records no usage for a replay agent run, and exports its agent span without model or usage', async () => {
    const projectDir = await tempProject();
    scratch.push(projectDir);
    const dir = path.join(projectDir, 'replies');
    await writeReplies(dir, 2);
    const result = await runGraph({
      projectDir,
      graph: graphOf('chain', 2),
      inputs: { goal: 'replay' },
      agentFor: () => createReplayAgent('replay', { kind: 'replay', dir }),
      runId: 'replayed',
    });
    expect(result.status).toBe('completed');
    const events = await readEvents(projectDir, 'replayed');
    expect(events.filter((event) => event['event'] === 'node.completed')).toHaveLength(2);
    expect(events.some((event) => event['event'] === 'agent.usage')).toBe(false);
    const { recorded } = await readRecordedRun(projectDir, 'replayed');
    const agentSpans = runSpansOf(recorded).filter((span) => span.name === agentSpanName('replay'));
    expect(agentSpans).toHaveLength(2);
    for (const span of agentSpans) expect(usageOf(span)).toEqual({});
  });
});
