import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { context, SpanStatusCode, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import type { ReadableSpan, Span, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import { runIngest } from '../../src/ingest/index.js';
import { createReplayAgent, runGraph } from '../../src/runtime/index.js';
import type { Agent } from '../../src/runtime/index.js';
import {
  agentSpanName,
  ATTR,
  FILE_EVENT,
  GEN_AI,
  INVOKE_AGENT,
  nodeSpanName,
  runSpanName,
  spanIdOf,
  stepSpanName,
  traceIdOfRun,
  TRACER_NAME,
} from '../../src/telemetry/index.js';
import { abortWorkflow, advanceWorkflow, startWorkflow } from '../../src/workflow/index.js';
import { graphOf, writeReplies } from '../bench/graph-runs.js';
import { readEvents, tempProject } from '../helpers/temp-project.js';
import { answerWithFile, depsOf } from '../workflow/engine/fixtures/engine-fixtures.js';
import {
  artifactDocument,
  DEVELOPMENT_RESULT,
  developGraph,
  writeReplies as writeContractReplies,
} from '../runtime/run/fixtures/contract-fixtures.js';

const sha256 = (bytes: Uint8Array | string): string => createHash('sha256').update(bytes).digest('hex');

/** Counts spans started and not yet ended: what a leaked span would leave behind. */
class OpenSpans implements SpanProcessor {
  readonly open = new Map<string, string>();
  onStart(span: Span): void {
    this.open.set(span.spanContext().spanId, span.name);
  }
  onEnd(span: ReadableSpan): void {
    this.open.delete(span.spanContext().spanId);
  }
  forceFlush(): Promise<void> {
    return Promise.resolve();
  }
  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

/** A real SDK registered as a host application would: an in-memory exporter and a leak counter. */
function registerSdk(withContextManager = true): { exporter: InMemorySpanExporter; openSpans: OpenSpans } {
  const exporter = new InMemorySpanExporter();
  const openSpans = new OpenSpans();
  const provider = new BasicTracerProvider({
    spanProcessors: [new SimpleSpanProcessor(exporter), openSpans],
  });
  if (withContextManager) context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(provider);
  return { exporter, openSpans };
}

afterEach(() => {
  trace.disable();
  context.disable();
});

/** A replay agent that answers late for early nodes, so concurrent nodes overlap and finish out of order. */
function slowReplay(dir: string, seen: Map<string, string>): Agent {
  const replay = createReplayAgent('replay', { kind: 'replay', dir });
  return {
    name: replay.name,
    kind: replay.kind,
    complete: async (request) => {
      // The active span inside the agent is its invoke_agent span: remembered, to check its parent below.
      seen.set(request.nodeId, trace.getActiveSpan()?.spanContext().spanId ?? '');
      const index = Number(request.nodeId.slice(1));
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, 40 - index * 8)));
      return replay.complete(request);
    },
  };
}

const attr = (span: ReadableSpan, key: string): unknown => span.attributes[key];
const parentOf = (span: ReadableSpan): string | undefined => span.parentSpanContext?.spanId;

describe('live spans of a graph run', () => {
  it('make one root per run, a child per node attempt, agent and ingest spans under their node, all ended', async () => {
    const { exporter, openSpans } = registerSdk();
    const projectDir = await tempProject();
    const replies = path.join(projectDir, 'replies');
    // n1..n5 have replies, n6 has none: its agent fails with replay_missing. n2..n6 depend on n1 only.
    await writeReplies(replies, 5);
    const seen = new Map<string, string>();
    const agent = slowReplay(replies, seen);
    const result = await runGraph({
      projectDir,
      graph: graphOf('fanout', 6),
      inputs: { goal: 'spans' },
      agentFor: () => agent,
      runId: 'live',
      concurrency: 4,
      ingest: { enabled: true, durability: 'none' },
    });
    expect(result.status).toBe('failed');
    expect([...openSpans.open.values()]).toEqual([]);

    const spans = exporter.getFinishedSpans();
    expect(new Set(spans.map((span) => span.instrumentationScope.name))).toEqual(new Set([TRACER_NAME]));
    const roots = spans.filter((span) => span.parentSpanContext === undefined);
    expect(roots.map((span) => span.name)).toEqual([runSpanName('live')]);
    const root = roots[0]!;
    expect(root.attributes).toMatchObject({
      [ATTR.runId]: 'live',
      [ATTR.runKind]: 'graph',
      [ATTR.graph]: 'bench-fanout-6',
      [ATTR.status]: 'failed',
    });
    expect(typeof attr(root, ATTR.host)).toBe('string');
    expect(root.status.code).toBe(SpanStatusCode.ERROR);
    expect(root.status.message).toContain('n6 (failed)');
    const traceId = root.spanContext().traceId;
    expect(spans.every((span) => span.spanContext().traceId === traceId)).toBe(true);
    // The live trace id is where the report finds it: on the run's first event.
    const events = await readEvents(projectDir, 'live');
    expect(events.find((event) => event['event'] === 'run.started')).toMatchObject({ trace_id: traceId });

    const nodeSpans = spans.filter((span) => span.name.startsWith('node '));
    expect(nodeSpans.map((span) => attr(span, ATTR.nodeId)).sort()).toEqual(
      ['n1', 'n2', 'n3', 'n4', 'n5', 'n6'].sort(),
    );
    for (const node of nodeSpans) {
      const nodeId = String(attr(node, ATTR.nodeId));
      expect(node.name).toBe(nodeSpanName(nodeId));
      expect(parentOf(node)).toBe(root.spanContext().spanId);
      expect(node.attributes).toMatchObject({ [ATTR.nodeType]: 'agent_task', [ATTR.attempt]: 1 });
      const children = spans.filter((span) => parentOf(span) === node.spanContext().spanId);
      const agentSpans = children.filter((span) => span.name === agentSpanName('replay'));
      expect(agentSpans).toHaveLength(1);
      const agentSpan = agentSpans[0]!;
      // The span the agent ran in is this node's agent span, even with four nodes running at once.
      expect(seen.get(nodeId)).toBe(agentSpan.spanContext().spanId);
      expect(agentSpan.attributes).toMatchObject({
        [GEN_AI.operationName]: INVOKE_AGENT,
        [GEN_AI.agentId]: 'replay',
        [GEN_AI.agentName]: 'replay',
      });
      expect(agentSpan.attributes).not.toHaveProperty(GEN_AI.providerName);
      // The agent span lies within its node's span.
      expect(agentSpan.startTime[0] * 1e9 + agentSpan.startTime[1]).toBeGreaterThanOrEqual(
        node.startTime[0] * 1e9 + node.startTime[1],
      );
      if (nodeId === 'n6') {
        expect(node.status.code).toBe(SpanStatusCode.ERROR);
        expect(node.status.message).toContain('replay_missing');
        expect(attr(node, ATTR.status)).toBe('failed');
        expect(agentSpan.status.code).toBe(SpanStatusCode.ERROR);
        expect(children.filter((span) => span.name.startsWith('ingest '))).toEqual([]);
        continue;
      }
      expect(node.status.code).toBe(SpanStatusCode.UNSET);
      expect(attr(node, ATTR.status)).toBe('completed');
      const ingests = children.filter((span) => span.name.startsWith('ingest '));
      expect(ingests.map((span) => span.name)).toEqual([`ingest docs/${nodeId}.md`]);
      const ingest = ingests[0]!;
      const files = 1 + (Number(nodeId.slice(1)) % 2);
      expect(ingest.attributes).toMatchObject({
        [ATTR.document]: `docs/${nodeId}.md`,
        [ATTR.nodeId]: nodeId,
        [ATTR.blocksFound]: files,
        [ATTR.blocksWritten]: files,
        [ATTR.blocksSkipped]: 0,
        [ATTR.blocksRejected]: 0,
      });
      const manifest = JSON.parse(
        await readFile(path.join(projectDir, '.agent/runs/live/manifests', `${nodeId}.json`), 'utf8'),
      ) as { artifacts: { workspace_path: string; sha256: string; bytes: number }[] };
      const fileEvents = ingest.events.filter((event) => event.name === FILE_EVENT);
      expect(fileEvents).toHaveLength(files);
      for (const [index, event] of fileEvents.entries()) {
        const entry = manifest.artifacts[index]!;
        const onDisk = await readFile(path.join(projectDir, entry.workspace_path));
        expect(event.attributes).toEqual({
          [ATTR.path]: entry.workspace_path,
          [ATTR.sha256]: sha256(onDisk),
          [ATTR.bytes]: onDisk.byteLength,
          [ATTR.fileStatus]: 'written',
        });
        expect(entry.sha256).toBe(sha256(onDisk));
      }
    }
  });

  it('ends every span when a node throws out of the node loop, and marks them ERROR', async () => {
    const { exporter, openSpans } = registerSdk();
    const projectDir = await tempProject();
    const replies = path.join(projectDir, 'replies');
    await writeReplies(replies, 3);
    const agent = createReplayAgent('replay', { kind: 'replay', dir: replies });
    const run = runGraph({
      projectDir,
      graph: graphOf('chain', 3),
      inputs: { goal: 'spans' },
      agentFor: () => agent,
      runId: 'thrown',
      onProgress: (progress) => {
        // A broken caller callback (with a key in its message) is a thrown error inside node n2's loop.
        if (progress.type === 'node.completed' && progress.nodeId === 'n2') {
          throw new Error('progress sink broke: api_key=sk-live-0123456789abcdef0123456789');
        }
      },
    });
    await expect(run).rejects.toThrow('progress sink broke');
    expect([...openSpans.open.values()]).toEqual([]);
    const spans = exporter.getFinishedSpans();
    const root = spans.find((span) => span.parentSpanContext === undefined)!;
    const n2 = spans.find((span) => span.name === nodeSpanName('n2'))!;
    for (const span of [root, n2]) {
      expect(span.status.code).toBe(SpanStatusCode.ERROR);
      expect(span.status.message).toContain('progress sink broke');
      expect(span.status.message).not.toContain('sk-live-0123456789abcdef0123456789');
    }
    expect(spans.some((span) => span.name === nodeSpanName('n3'))).toBe(false);
  });

  it('puts the model and token usage an agent reports on its invoke_agent span', async () => {
    const { exporter } = registerSdk();
    const projectDir = await tempProject();
    const cloud: Agent = {
      name: 'cloud',
      kind: 'openai',
      model: 'gpt-test',
      complete: (request) => {
        request.onUsage?.({ responseModel: 'gpt-test-0613', inputTokens: 41, outputTokens: 7 });
        return Promise.resolve('# Plan\n');
      },
    };
    const result = await runGraph({
      projectDir,
      graph: graphOf('chain', 1),
      inputs: { goal: 'usage' },
      agentFor: () => cloud,
      runId: 'usage',
    });
    expect(result.status).toBe('completed');
    const agentSpan = exporter.getFinishedSpans().find((span) => span.name === agentSpanName('cloud'))!;
    expect(agentSpan.attributes).toEqual({
      [GEN_AI.operationName]: INVOKE_AGENT,
      [GEN_AI.agentId]: 'cloud',
      [GEN_AI.agentName]: 'cloud',
      [GEN_AI.providerName]: 'openai',
      [GEN_AI.requestModel]: 'gpt-test',
      [GEN_AI.responseModel]: 'gpt-test-0613',
      [GEN_AI.inputTokens]: 41,
      [GEN_AI.outputTokens]: 7,
      [ATTR.status]: 'completed',
    });
  });

  it('gives a contract re-ask its own attempt span, the agent call and ingest of each ask under its attempt', async () => {
    const { exporter, openSpans } = registerSdk();
    const projectDir = await tempProject();
    const dir = await writeContractReplies(projectDir, {
      'develop.md': artifactDocument('development_result', { ...DEVELOPMENT_RESULT, outcome: 'finished' }),
      'develop.attempt-2.md': artifactDocument('development_result', DEVELOPMENT_RESULT),
    });
    const result = await runGraph({
      projectDir,
      graph: developGraph(),
      inputs: {},
      agentFor: () => createReplayAgent('builder', { kind: 'replay', dir }),
      runId: 'fixed',
      ingest: { enabled: true, durability: 'none' },
    });
    expect(result.state.nodes.develop).toMatchObject({ status: 'completed', attempts: 2 });
    expect([...openSpans.open.values()]).toEqual([]);
    const spans = exporter.getFinishedSpans();
    const attempts = spans
      .filter((span) => span.name === nodeSpanName('develop'))
      .sort((a, b) => Number(attr(a, ATTR.attempt)) - Number(attr(b, ATTR.attempt)));
    expect(
      attempts.map((span) => [attr(span, ATTR.attempt), attr(span, ATTR.status), span.status.code]),
    ).toEqual([
      [1, 'fix_needed', SpanStatusCode.ERROR],
      [2, 'completed', SpanStatusCode.UNSET],
    ]);
    for (const attempt of attempts) {
      const children = spans.filter((span) => parentOf(span) === attempt.spanContext().spanId);
      expect(children.map((span) => span.name)).toEqual([
        agentSpanName('builder'),
        'ingest docs/fixed/develop.md',
      ]);
    }
  });

  it('ends the spans of nodes stopped by an abort', async () => {
    const { exporter, openSpans } = registerSdk();
    const projectDir = await tempProject();
    const controller = new AbortController();
    const waiting: Agent = {
      name: 'waiting',
      kind: 'replay',
      complete: (request) =>
        new Promise((_resolve, reject) => {
          request.signal.addEventListener('abort', () => {
            reject(new Error('stopped'));
          });
          controller.abort(new Error('Ctrl-C'));
        }),
    };
    const result = await runGraph({
      projectDir,
      graph: graphOf('fanout', 3),
      inputs: { goal: 'abort' },
      agentFor: () => waiting,
      runId: 'stopped',
      signal: controller.signal,
    });
    expect(result.status).toBe('failed');
    expect([...openSpans.open.values()]).toEqual([]);
    const n1 = exporter.getFinishedSpans().find((span) => span.name === nodeSpanName('n1'))!;
    expect(n1.status.code).toBe(SpanStatusCode.ERROR);
    expect(n1.status.message).toContain('aborted');
  });

  it('parents node spans on the run span even when the host registered no context manager', async () => {
    const { exporter, openSpans } = registerSdk(false);
    const projectDir = await tempProject();
    const replies = path.join(projectDir, 'replies');
    await writeReplies(replies, 3);
    const agent = createReplayAgent('replay', { kind: 'replay', dir: replies });
    await runGraph({
      projectDir,
      graph: graphOf('fanout', 3),
      inputs: { goal: 'no context manager' },
      agentFor: () => agent,
      runId: 'nocm',
    });
    expect([...openSpans.open.values()]).toEqual([]);
    const spans = exporter.getFinishedSpans();
    const root = spans.find((span) => span.name === runSpanName('nocm'))!;
    expect(root.parentSpanContext).toBeUndefined();
    const nodes = spans.filter((span) => span.name.startsWith('node '));
    expect(nodes).toHaveLength(3);
    for (const node of nodes) expect(parentOf(node)).toBe(root.spanContext().spanId);
  });

  it('with no SDK registered, runs as before and records no trace id', async () => {
    const projectDir = await tempProject();
    const replies = path.join(projectDir, 'replies');
    await writeReplies(replies, 3);
    const replay = createReplayAgent('replay', { kind: 'replay', dir: replies });
    const recording: boolean[] = [];
    const result = await runGraph({
      projectDir,
      graph: graphOf('fanout', 3),
      inputs: { goal: 'no sdk' },
      agentFor: () => ({
        ...replay,
        complete: (request) => {
          recording.push(trace.getActiveSpan()?.isRecording() ?? false);
          return replay.complete(request);
        },
      }),
      runId: 'nosdk',
      ingest: { enabled: true, durability: 'none' },
    });
    expect(result.status).toBe('completed');
    expect(recording).toEqual([false, false, false]);
    const started = (await readEvents(projectDir, 'nosdk')).find((event) => event['event'] === 'run.started');
    expect(started).toBeDefined();
    expect(started).not.toHaveProperty('trace_id');
  });
});

describe('live spans of a workflow run', () => {
  it('puts every step pass of one run, across calls, in the trace derived from its run id', async () => {
    const { exporter, openSpans } = registerSdk();
    const projectDir = await tempProject();
    const deps = depsOf({ ingest: true });
    await startWorkflow(
      projectDir,
      { workflow: 'feature-dev', inputs: { feature: 'login' }, run_id: 'wf' },
      deps,
    );
    await advanceWorkflow(
      projectDir,
      { run_id: 'wf', output: answerWithFile('The scope.', 'src/scope.ts', 'export const scope = 1;\n') },
      deps,
    );
    await advanceWorkflow(projectDir, { run_id: 'wf', output: '1. form\n2. validation' }, deps);
    await abortWorkflow(projectDir, { run_id: 'wf', reason: 'enough' }, deps);
    expect([...openSpans.open.values()]).toEqual([]);

    const spans = exporter.getFinishedSpans();
    const steps = spans.filter((span) => span.name.startsWith('step '));
    expect(steps.map((span) => span.name)).toEqual([
      stepSpanName('scope'),
      stepSpanName('plan'),
      stepSpanName('implement'),
    ]);
    expect(steps.map((span) => attr(span, ATTR.status))).toEqual(['completed', 'completed', 'aborted']);
    for (const step of steps) {
      expect(step.spanContext().traceId).toBe(traceIdOfRun('wf'));
      expect(step.parentSpanContext).toMatchObject({ spanId: spanIdOf('wf', ['run']), isRemote: true });
      expect(step.attributes).toMatchObject({
        [ATTR.runId]: 'wf',
        [ATTR.runKind]: 'workflow',
        [ATTR.graph]: 'feature-dev',
      });
    }
    const ingest = spans.find((span) => span.name.startsWith('ingest '))!;
    expect(parentOf(ingest)).toBe(steps[0]!.spanContext().spanId);
    const file = ingest.events.find((event) => event.name === FILE_EVENT)!;
    const onDisk = await readFile(path.join(projectDir, 'workspace/src/scope.ts'));
    expect(file.attributes).toMatchObject({
      [ATTR.path]: 'workspace/src/scope.ts',
      [ATTR.sha256]: sha256(onDisk),
      [ATTR.fileStatus]: 'written',
    });
  });
});

describe('live span of a lone ingest', () => {
  it('is a root span with a file event per block, rejected ones with their reason', async () => {
    const { exporter } = registerSdk();
    const projectDir = await tempProject({
      'docs/plan.md': '```ts file=src/a.ts\nexport const a = 1;\n```\n\n```ts file=../escape.ts\nx\n```\n',
    });
    const result = await runIngest({ projectDir, docPath: 'docs/plan.md', runId: 'cli', nodeId: 'plan' });
    expect(result.manifest.summary).toMatchObject({ written: 1, rejected: 1 });
    const [span, ...others] = exporter.getFinishedSpans();
    expect(others).toEqual([]);
    expect(span!.name).toBe('ingest docs/plan.md');
    expect(span!.parentSpanContext).toBeUndefined();
    expect(span!.events.map((event) => event.attributes?.[ATTR.fileStatus])).toEqual(['written', 'rejected']);
    expect(span!.events[1]!.attributes?.[ATTR.reason]).toEqual(expect.any(String));
    expect(span!.events[0]!.attributes?.[ATTR.sha256]).toBe(sha256('export const a = 1;\n'));
  });
});
