import { describe, expect, it } from 'vitest';
import {
  ATTR,
  FILE_EVENT,
  GEN_AI,
  otlpTraceRequestOf,
  runSpansOf,
  spanIdOf,
  traceIdOfRun,
} from '../../src/telemetry/index.js';
import type { RecordedRun, RecordedStep, TraceSpan } from '../../src/telemetry/index.js';

function step(overrides: Partial<RecordedStep> & Pick<RecordedStep, 'key' | 'id'>): RecordedStep {
  return {
    kind: 'node',
    status: 'completed',
    agent: 'builder',
    attempt: 1,
    promptSha256: 'a'.repeat(64),
    startedAt: '2026-01-02T03:04:05.000Z',
    finishedAt: '2026-01-02T03:04:09.000Z',
    error: null,
    document: { path: 'docs/build.md', sha256: 'b'.repeat(64), bytes: 120 },
    blocks: [],
    files: [],
    ...overrides,
  };
}

const run: RecordedRun = {
  run: {
    runId: 'r-1',
    kind: 'graph',
    definition: { name: 'team' },
    status: 'failed',
    startedAt: '2026-01-02T03:04:00.000Z',
    finishedAt: '2026-01-02T03:05:00.000Z',
  },
  steps: [
    step({
      key: 'build',
      id: 'build',
      status: 'failed',
      document: null,
      finishedAt: '2026-01-02T03:04:06.000Z',
      // A secret in an agent's error must not reach a span.
      error: {
        code: 'http_status',
        message: 'HTTP 401 for key sk-proj-abcdefghijklmnopqrstuvwxyz0123456789',
      },
    }),
    step({
      key: 'build#2',
      id: 'build',
      attempt: 2,
      startedAt: '2026-01-02T03:04:10.000Z',
      finishedAt: '2026-01-02T03:04:20.000Z',
      ingest: { startedAt: '2026-01-02T03:04:15.000Z', finishedAt: '2026-01-02T03:04:16.000Z' },
      agentCall: { requestModel: 'gpt-x', inputTokens: 12, outputTokens: 34 },
      blocks: [
        {
          declaredFile: 'a.ts',
          workspacePath: 'workspace/a.ts',
          bytes: 3,
          sha256: 'c'.repeat(64),
          status: 'written',
          code: '',
        },
        {
          declaredFile: 'b.ts',
          workspacePath: 'workspace/b.ts',
          bytes: 4,
          sha256: 'd'.repeat(64),
          status: 'written',
          code: '',
        },
        {
          declaredFile: 'c.ts',
          workspacePath: 'workspace/c.ts',
          bytes: 5,
          sha256: 'e'.repeat(64),
          status: 'skipped',
          code: 'unchanged',
        },
        {
          declaredFile: '../x',
          workspacePath: '',
          bytes: 6,
          sha256: 'f'.repeat(64),
          status: 'rejected',
          code: 'traversal',
        },
      ],
      files: [
        { path: 'workspace/a.ts', artifactId: 'art-1', contentHash: `sha256:${'c'.repeat(64)}`, bytes: 3 },
      ],
    }),
    step({ key: 'write', id: 'write', agent: null, promptSha256: null }),
    step({ key: 'later', id: 'later', status: 'pending', startedAt: null, finishedAt: null, document: null }),
  ],
};

function byName(spans: readonly TraceSpan[], name: string): TraceSpan[] {
  return spans.filter((span) => span.name === name);
}

describe('runSpansOf', () => {
  const spans = runSpansOf(run);

  it('makes one root per run, a child per execution that started (attempts apart), in one trace', () => {
    const roots = spans.filter((span) => span.parentSpanId === null);
    expect(roots.map((span) => span.name)).toEqual(['run r-1']);
    expect(new Set(spans.map((span) => span.traceId))).toEqual(new Set([traceIdOfRun('r-1')]));
    const nodes = spans.filter((span) => span.parentSpanId === roots[0]?.spanId);
    expect(nodes.map((span) => [span.name, span.attributes[ATTR.attempt]])).toEqual([
      ['node build', 1],
      ['node build', 2],
      ['node write', 1],
    ]);
    expect(nodes[1]?.spanId).toBe(spanIdOf('r-1', ['node', 'build', '2']));
    expect(roots[0]?.status).toEqual({ code: 'error', message: 'run failed' });
  });

  it('puts the agent call under its node, with the model and tokens the agent reported, and none for a write_file node', () => {
    const agents = byName(spans, 'invoke_agent builder');
    expect(agents.map((span) => span.parentSpanId)).toEqual([
      spanIdOf('r-1', ['node', 'build', '1']),
      spanIdOf('r-1', ['node', 'build', '2']),
    ]);
    expect(agents[1]?.attributes).toMatchObject({
      [GEN_AI.operationName]: 'invoke_agent',
      [GEN_AI.agentId]: 'builder',
      [GEN_AI.agentName]: 'builder',
      [GEN_AI.requestModel]: 'gpt-x',
      [GEN_AI.inputTokens]: 12,
      [GEN_AI.outputTokens]: 34,
    });
    // The agent's part ends where the ingest of its reply began.
    expect(agents[1]?.endTime).toBe('2026-01-02T03:04:15.000Z');
    const write = spans.find((span) => span.name === 'node write');
    // No agent call, and no ingest span either: no event and no manifest say one happened.
    expect(spans.filter((span) => span.parentSpanId === write?.spanId)).toEqual([]);
  });

  it('sets ERROR with the redacted message on the failed node and on the agent call that did not reply', () => {
    const failed = spans.find((span) => span.spanId === spanIdOf('r-1', ['node', 'build', '1']));
    expect(failed?.status.code).toBe('error');
    expect(failed?.status.message).toMatch(/^http_status: HTTP 401 for key /);
    const agent = byName(spans, 'invoke_agent builder')[0];
    expect(agent?.status).toEqual(failed?.status);
    expect(JSON.stringify(spans)).not.toContain('abcdefghijklmnopqrstuvwxyz0123456789');
  });

  it('gives the ingest its block counts, its recorded times and one file event per block', () => {
    const ingest = spans.find((span) => span.spanId === spanIdOf('r-1', ['node', 'build', '2', 'ingest']));
    expect(ingest?.attributes).toMatchObject({
      [ATTR.blocksFound]: 4,
      [ATTR.blocksWritten]: 2,
      [ATTR.blocksSkipped]: 1,
      [ATTR.blocksRejected]: 1,
    });
    expect([ingest?.startTime, ingest?.endTime]).toEqual([
      '2026-01-02T03:04:15.000Z',
      '2026-01-02T03:04:16.000Z',
    ]);
    expect(
      ingest?.events.map((event) => [
        event.name,
        event.attributes[ATTR.path],
        event.attributes[ATTR.fileStatus],
      ]),
    ).toEqual([
      [FILE_EVENT, 'workspace/a.ts', 'written'],
      // Written, but no new version recorded: the same bytes were there already.
      [FILE_EVENT, 'workspace/b.ts', 'unchanged'],
      [FILE_EVENT, 'workspace/c.ts', 'skipped'],
      [FILE_EVENT, '../x', 'rejected'],
    ]);
    expect(ingest?.events[0]?.attributes).toMatchObject({
      [ATTR.artifactId]: 'art-1',
      [ATTR.bytes]: 3,
      [ATTR.sha256]: 'c'.repeat(64),
    });
    expect(ingest?.events[3]?.attributes[ATTR.reason]).toBe('traversal');
  });

  it('gives the same spans on every export', () => {
    expect(runSpansOf(run)).toEqual(spans);
  });

  it('exports nothing for a run with no recorded time', () => {
    expect(runSpansOf({ run: { ...run.run, startedAt: null }, steps: [] })).toEqual([]);
  });
});

describe('otlpTraceRequestOf', () => {
  it('encodes per OTLP/JSON: hex ids, no parent on the root, nanoseconds and int64 as strings, enums as integers', () => {
    const request = otlpTraceRequestOf(runSpansOf(run), '9.9.9');
    const [resource] = request.resourceSpans;
    expect(resource?.resource.attributes).toContainEqual({
      key: 'service.name',
      value: { stringValue: 'artifact-ingest' },
    });
    expect(resource?.scopeSpans[0]?.scope).toEqual({ name: 'artifact-ingest', version: '9.9.9' });
    const [root, node] = resource?.scopeSpans[0]?.spans ?? [];
    expect(root).not.toHaveProperty('parentSpanId');
    expect(root?.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(root?.startTimeUnixNano).toBe('1767323040000000000');
    expect(root?.status).toEqual({ code: 2, message: 'run failed' });
    expect(node?.parentSpanId).toBe(root?.spanId);
    expect(node?.kind).toBe(1);
    expect(node?.attributes).toContainEqual({ key: ATTR.attempt, value: { intValue: '1' } });
    const agent = resource?.scopeSpans[0]?.spans.find((span) => span.name.startsWith('invoke_agent'));
    expect(agent?.kind).toBe(3);
  });
});
