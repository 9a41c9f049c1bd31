import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ATTR, FILE_EVENT, GEN_AI, INVOKE_AGENT, spanIdOf, traceIdOfRun } from '../../src/telemetry/index.js';
import type { OtlpKeyValue, OtlpSpan, OtlpTraceRequest } from '../../src/telemetry/index.js';
import { startStubServer } from '../helpers/stub-http-server.js';
import type { StubRequest, StubServer } from '../helpers/stub-http-server.js';
import { fileBlock, readEvents, tempProject } from '../helpers/temp-project.js';
import { CLI, runCli, runProgram, spawnCli } from '../helpers/run-cli.js';

// `export otlp` and `run --otlp` on a real demo run, sent to a real OTLP/HTTP receiver on 127.0.0.1 that decodes
// the JSON it gets. The built CLI runs in a child process where the process matters (`| head`, the secret kept out
// of its output); the rest runs the same CLI in this process.

let root: string;
let team: string;
let teamRun: string;
let server: StubServer | undefined;

/** No OTLP or Langfuse variable of the machine running the tests leaks into a case. */
const CLEAN_ENV: Record<string, string> = {
  OTEL_EXPORTER_OTLP_ENDPOINT: '',
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: '',
  OTEL_EXPORTER_OTLP_HEADERS: '',
  OTEL_EXPORTER_OTLP_TRACES_HEADERS: '',
  OTEL_EXPORTER_OTLP_TIMEOUT: '',
  OTEL_EXPORTER_OTLP_TRACES_TIMEOUT: '',
  OTEL_EXPORTER_OTLP_PROTOCOL: '',
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: '',
  LANGFUSE_PUBLIC_KEY: '',
  LANGFUSE_SECRET_KEY: '',
  LANGFUSE_HOST: '',
  LANGFUSE_BASE_URL: '',
};

function exportOtlp(args: string[], env: Record<string, string> = {}) {
  return runCli(['export', 'otlp', ...args], { env: { ...CLEAN_ENV, ...env } });
}

/** `run team` on a replay project with ingest on, under `runId`, with `args` after (the receiver's flags). */
function runTeam(dir: string, runId: string, args: string[], env: Record<string, string> = {}, goal = 'x') {
  return runCli(
    ['run', 'team', '--project', dir, '--input', `goal=${goal}`, '--ingest', '--run-id', runId, ...args],
    { env: { ...CLEAN_ENV, ...env } },
  );
}

function spansOf(request: OtlpTraceRequest): OtlpSpan[] {
  return request.resourceSpans.flatMap((resource) => resource.scopeSpans.flatMap((scope) => scope.spans));
}

function received(request: StubRequest | undefined): OtlpTraceRequest {
  if (request === undefined) throw new Error('the receiver got nothing');
  return JSON.parse(request.body) as OtlpTraceRequest;
}

function attribute(attributes: readonly OtlpKeyValue[], key: string): unknown {
  const value = attributes.find((entry) => entry.key === key)?.value;
  return value === undefined ? undefined : Object.values(value)[0];
}

/** An OTLP/HTTP receiver answering 200 (an empty partial success) to every POST. */
async function acceptingReceiver(): Promise<StubServer> {
  return startStubServer((_, __, response) => {
    response.statusCode = 200;
    response.setHeader('content-type', 'application/json');
    response.write('{}');
  });
}

/**
 * Checks the span tree of a team run and returns its spans; `fresh`: the first run in its folder, whose plan
 * node writes package.json (a later run finds it unchanged).
 */
function expectTeamTree(request: OtlpTraceRequest, runId: string, fresh = true): OtlpSpan[] {
  expect(request.resourceSpans).toHaveLength(1);
  expect(attribute(request.resourceSpans[0]?.resource.attributes ?? [], 'service.name')).toBe(
    'artifact-ingest',
  );
  expect(request.resourceSpans[0]?.scopeSpans[0]?.scope.name).toBe('artifact-ingest');
  const spans = spansOf(request);
  const traceId = traceIdOfRun(runId);
  for (const span of spans) {
    expect(span.traceId).toBe(traceId);
    expect(span.spanId).toMatch(/^[0-9a-f]{16}$/);
    expect(span.startTimeUnixNano).toMatch(/^\d{19}$/);
    expect(BigInt(span.endTimeUnixNano) >= BigInt(span.startTimeUnixNano)).toBe(true);
  }
  expect(new Set(spans.map((span) => span.spanId)).size).toBe(spans.length);
  const roots = spans.filter((span) => span.parentSpanId === undefined);
  expect(roots).toHaveLength(1);
  const root = roots[0]!;
  expect(root.name).toBe(`run ${runId}`);
  expect(attribute(root.attributes, ATTR.runId)).toBe(runId);
  const nodes = spans.filter((span) => span.parentSpanId === root.spanId);
  // The team graph: plan, todo, pm, task_api, task_readme, audit, final.
  expect(nodes.map((span) => attribute(span.attributes, ATTR.nodeId)).sort()).toEqual(
    ['audit', 'final', 'plan', 'pm', 'task_api', 'task_readme', 'todo'].sort(),
  );
  for (const node of nodes) expect(node.name).toBe(`node ${String(attribute(node.attributes, ATTR.nodeId))}`);
  const byId = new Map(spans.map((span) => [span.spanId, span]));
  const agents = spans.filter((span) => attribute(span.attributes, GEN_AI.operationName) === INVOKE_AGENT);
  expect(agents.length).toBeGreaterThan(0);
  for (const agent of agents) {
    const parent = byId.get(agent.parentSpanId ?? '');
    expect(nodes).toContain(parent);
    expect(agent.name).toBe(`invoke_agent ${String(attribute(agent.attributes, GEN_AI.agentName))}`);
    expect(attribute(agent.attributes, GEN_AI.agentId)).toBe(attribute(agent.attributes, GEN_AI.agentName));
  }
  // The plan node's agent is the planner; the todo node is a write_file node with no agent call.
  const plan = nodes.find((span) => attribute(span.attributes, ATTR.nodeId) === 'plan')!;
  expect(plan.spanId).toBe(spanIdOf(runId, ['node', 'plan', '1']));
  expect(agents.find((span) => span.parentSpanId === plan.spanId)?.name).toBe('invoke_agent planner');
  const todo = nodes.find((span) => attribute(span.attributes, ATTR.nodeId) === 'todo')!;
  expect(agents.some((span) => span.parentSpanId === todo.spanId)).toBe(false);
  // The plan's ingest: 2 blocks, package.json written and one skipped, each a file event.
  const ingest = spans.find((span) => span.parentSpanId === plan.spanId && span.name.startsWith('ingest '))!;
  expect(attribute(ingest.attributes, ATTR.blocksFound)).toBe('2');
  expect(ingest.events.map((event) => event.name)).toEqual([FILE_EVENT, FILE_EVENT]);
  if (!fresh) return spans;
  expect(attribute(ingest.attributes, ATTR.blocksWritten)).toBe('1');
  expect(attribute(ingest.attributes, ATTR.blocksSkipped)).toBe('1');
  const written = ingest.events.find((event) => attribute(event.attributes, ATTR.fileStatus) === 'written')!;
  expect(attribute(written.attributes, ATTR.path)).toBe('workspace/package.json');
  expect(attribute(written.attributes, ATTR.sha256)).toMatch(/^[0-9a-f]{64}$/);
  expect(Number(attribute(written.attributes, ATTR.bytes))).toBeGreaterThan(0);
  return spans;
}

async function onlyRun(project: string): Promise<string> {
  const [runId, ...others] = await readdir(path.join(project, '.agent', 'runs'));
  expect(others).toEqual([]);
  if (runId === undefined) throw new Error('no run');
  return runId;
}

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'otlp-'));
  team = path.join(root, 'team');
  expect((await runCli(['demo', '--dir', team, '--json'])).code).toBe(0);
  teamRun = await onlyRun(team);
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('artifact-ingest export otlp', () => {
  it('prints the run as one OTLP/JSON trace: one root, a span per node, agent and ingest spans under them', async () => {
    const result = await exportOtlp([teamRun, '--project', team]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe('');
    expectTeamTree(JSON.parse(result.stdout) as OtlpTraceRequest, teamRun);
  });

  it('POSTs to exactly URL/v1/traces and sends the same ids again on a re-export', async () => {
    server = await acceptingReceiver();
    const first = await exportOtlp([teamRun, '--project', team, '--url', `${server.url}/collector/`]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toMatch(
      /^sent \d+ spans of trace [0-9a-f]{32} to http:\/\/127\.0\.0\.1:\d+\/collector\/v1\/traces\n$/,
    );
    const second = await exportOtlp([teamRun, '--project', team, '--url', server.url, '--json']);
    expect(second.code, second.stderr).toBe(0);
    expect(server.requests.map((request) => [request.method, request.path])).toEqual([
      ['POST', '/collector/v1/traces'],
      ['POST', '/v1/traces'],
    ]);
    expect(server.requests[0]?.headers['content-type']).toBe('application/json');
    const once = expectTeamTree(received(server.requests[0]), teamRun);
    const again = spansOf(received(server.requests[1]));
    expect(again.map((span) => [span.spanId, span.parentSpanId, span.name])).toEqual(
      once.map((span) => [span.spanId, span.parentSpanId, span.name]),
    );
    expect(JSON.parse(second.stdout)).toEqual({
      runId: teamRun,
      traceId: traceIdOfRun(teamRun),
      spans: once.length,
      endpoint: `${server.url}/v1/traces`,
    });
  });

  it('honours OTEL_EXPORTER_OTLP_ENDPOINT (+ /v1/traces) and its headers, URL-decoded, the traces ones winning', async () => {
    server = await acceptingReceiver();
    const result = await exportOtlp([teamRun, '--project', team], {
      OTEL_EXPORTER_OTLP_ENDPOINT: `${server.url}/base`,
      OTEL_EXPORTER_OTLP_HEADERS: 'x-tenant=team%20a,Authorization=Bearer%20general-token-0001',
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'authorization=Bearer%20traces-token-0002',
    });
    expect(result.code, result.stderr).toBe(0);
    expect(server.requests.map((request) => request.path)).toEqual(['/base/v1/traces']);
    expect(server.requests[0]?.headers['x-tenant']).toBe('team a');
    expect(server.requests[0]?.headers.authorization).toBe('Bearer traces-token-0002');
    expect(`${result.stdout}${result.stderr}`).not.toMatch(/token-000/);
  });

  it('takes OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as is, before OTEL_EXPORTER_OTLP_ENDPOINT', async () => {
    server = await acceptingReceiver();
    const result = await exportOtlp([teamRun, '--project', team], {
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${server.url}/custom/traces`,
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9/nowhere',
    });
    expect(result.code, result.stderr).toBe(0);
    expect(server.requests.map((request) => request.path)).toEqual(['/custom/traces']);
  });

  it('sends to Langfuse with Basic auth, and the secret key shows nowhere but in that header', async () => {
    const secret = 'sk-lf-0b5e9a1c-must-not-show';
    server = await startStubServer((request, _, response) => {
      response.statusCode = 200;
      // A receiver that echoes what it got must not make the CLI print it.
      response.write(`ok ${String(request.headers.authorization)} ${secret}`);
    });
    const result = await spawnCli(['export', 'otlp', teamRun, '--project', team, '--langfuse', '--json'], {
      env: {
        ...CLEAN_ENV,
        LANGFUSE_PUBLIC_KEY: 'pk-lf-public',
        LANGFUSE_SECRET_KEY: secret,
        LANGFUSE_HOST: server.url,
      },
    });
    expect(result.code, result.stderr).toBe(0);
    expect(server.requests.map((request) => request.path)).toEqual(['/api/public/otel/v1/traces']);
    const expected = `Basic ${Buffer.from(`pk-lf-public:${secret}`).toString('base64')}`;
    expect(server.requests[0]?.headers.authorization).toBe(expected);
    expect(server.requests[0]?.headers['x-langfuse-ingestion-version']).toBe('4');
    expect(server.requests[0]?.body).not.toContain(secret);
    expectTeamTree(received(server.requests[0]), teamRun);
    for (const text of [result.stdout, result.stderr]) {
      expect(text).not.toContain(secret);
      expect(text).not.toContain(expected.slice('Basic '.length));
    }
  });

  it('keeps the Langfuse secret out of the refusal an echoing Langfuse sends back', async () => {
    const secret = 'sk-lf-7d41-echoed-in-the-refusal';
    server = await startStubServer((request, _, response) => {
      response.statusCode = 401;
      response.write(`invalid credentials ${String(request.headers.authorization)} (secret ${secret})\n`);
    });
    const result = await spawnCli(['export', 'otlp', teamRun, '--project', team, '--langfuse'], {
      env: {
        ...CLEAN_ENV,
        LANGFUSE_PUBLIC_KEY: 'pk-lf-x',
        LANGFUSE_SECRET_KEY: secret,
        LANGFUSE_BASE_URL: server.url,
      },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/was not accepted by .*: HTTP 401 Unauthorized: invalid credentials/);
    expect(result.stderr).not.toContain(secret);
    expect(result.stderr).not.toContain(Buffer.from(`pk-lf-x:${secret}`).toString('base64'));
  });

  it.each([
    [{ LANGFUSE_SECRET_KEY: 'sk-lf-1' }, /--langfuse needs LANGFUSE_PUBLIC_KEY/],
    [{ LANGFUSE_PUBLIC_KEY: 'pk-lf-1' }, /--langfuse needs LANGFUSE_SECRET_KEY/],
  ])('refuses --langfuse without a key (exit 2 naming the variable): %j', async (env, message) => {
    const result = await exportOtlp([teamRun, '--project', team, '--langfuse'], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stdout).toBe('');
  });

  it('retries a receiver that fails twice, then is accepted', async () => {
    server = await startStubServer((_, number, response) => {
      response.statusCode = number < 2 ? 503 : 200;
      if (number < 2) response.write('collector starting\n');
    });
    const result = await exportOtlp([teamRun, '--project', team, '--url', server.url]);
    expect(result.code, result.stderr).toBe(0);
    expect(server.requests).toHaveLength(3);
    expect(result.stderr).toMatch(
      /HTTP 503 Service Unavailable: collector starting; retrying in [\d.]+ s \(attempt 2\)/,
    );
    expect(server.requests[2]?.body).toBe(server.requests[0]?.body);
  });

  it('stops at a refusal (exit 1 naming the status), without retrying', async () => {
    server = await startStubServer((_, __, response) => {
      response.statusCode = 400;
      response.write('{"code":3,"message":"bad span"}\n');
    });
    const result = await exportOtlp([teamRun, '--project', team, '--url', server.url]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /was not accepted by http:\/\/127\.0\.0\.1:\d+\/v1\/traces: HTTP 400 Bad Request: \{"code":3/,
    );
    expect(server.requests).toHaveLength(1);
  });

  it(
    'gives up on a receiver that never answers: each attempt timed out, retried, exit 1',
    { timeout: 30_000 },
    async () => {
      server = await startStubServer(() => 'hang');
      const result = await exportOtlp([teamRun, '--project', team, '--url', server.url], {
        OTEL_EXPORTER_OTLP_TRACES_TIMEOUT: '150',
      });
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/no answer within 150 ms; retrying/);
      expect(result.stderr).toMatch(/was not accepted by .* after 5 attempts: no answer within 150 ms/);
      expect(server.requests).toHaveLength(5);
    },
  );

  it('exports a workflow run: a span per step pass under the run', async () => {
    const project = await tempProject({ 'artifact-ingest.config.yaml': 'ingest:\n  enabled: true\n' });
    const workflow = async (args: string[]) => {
      const result = await runCli(['workflow', ...args], { cwd: project, env: { ARTIFACT_INGEST: '' } });
      expect(result.code, result.stderr).toBe(0);
    };
    await workflow(['start', 'feature-dev', '--input', 'feature=login', '--run-id', 'fd-1']);
    await workflow(['advance', '--output', fileBlock('ts', 'src/login.ts', 'export const login = 1;\n')]);
    await workflow(['advance', '--output', 'one task']);
    await workflow(['abort', '--reason', 'changed my mind']);
    const result = await exportOtlp(['fd-1', '--project', project]);
    expect(result.code, result.stderr).toBe(0);
    const spans = spansOf(JSON.parse(result.stdout) as OtlpTraceRequest);
    const root = spans.find((span) => span.parentSpanId === undefined)!;
    expect(root.name).toBe('run fd-1');
    expect(attribute(root.attributes, ATTR.runKind)).toBe('workflow');
    expect(root.status).toEqual({ code: 2, message: 'run aborted' });
    const steps = spans.filter((span) => span.parentSpanId === root.spanId);
    expect(steps.map((span) => span.name)).toEqual(['step scope', 'step plan']);
    expect(steps.map((span) => attribute(span.attributes, ATTR.stepId))).toEqual(['scope', 'plan']);
    const ingest = spans.find(
      (span) => span.parentSpanId === steps[0]?.spanId && span.name.startsWith('ingest'),
    );
    expect(ingest?.events.map((event) => attribute(event.attributes, ATTR.path))).toEqual([
      'workspace/src/login.ts',
    ]);
    expect(ingest?.events.map((event) => attribute(event.attributes, ATTR.fileStatus))).toEqual(['written']);
  });

  it('survives | head', async () => {
    const command = `"${process.execPath}" "${CLI}" export otlp ${teamRun} --project "${team}" | head -3; echo "exit \${PIPESTATUS[0]}" >&2`;
    const result = await runProgram('bash', ['-c', command], { env: CLEAN_ENV });
    expect(result.stdout).toBe('{\n  "resourceSpans": [\n    {\n');
    expect(result.stderr).toMatch(/^exit 0\n$/);
  });

  it.each([
    [['export', 'otlp'], /takes exactly one RUN_ID/],
    [
      ['export', 'otlp', 'r', '--url', 'ftp://host'],
      /--url: the URL must start with http:\/\/ or https:\/\//,
    ],
    [['export', 'otlp', 'r', '--url', 'http://u:p@host'], /must not carry a user or password/],
    [['export', 'otlp', 'r', '--url', 'http://h', '--langfuse'], /give --url or --langfuse, not both/],
    [['export', 'otlp', 'no-such-run'], /no-such-run/],
  ])('refuses %j with exit 2', async (args, message) => {
    const result = await runCli([...args, '--project', team], { env: CLEAN_ENV });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
  });

  it('refuses OTEL_EXPORTER_OTLP_HEADERS that are not key=value, without printing the value', async () => {
    const result = await exportOtlp([teamRun, '--project', team], {
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9',
      OTEL_EXPORTER_OTLP_HEADERS: 'x-ok=1,just-a-token-4711',
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/OTEL_EXPORTER_OTLP_HEADERS: entry 2 is not key=value/);
    expect(result.stderr).not.toContain('4711');
  });
});

describe('artifact-ingest run --otlp / --langfuse', () => {
  async function replayProject(): Promise<string> {
    const dir = path.join(root, `run-${String(Date.now())}-${String(Math.random()).slice(2, 8)}`);
    expect((await runCli(['demo', '--dir', dir, '--json'])).code).toBe(0);
    return dir;
  }

  it('sends the trace as the run ends, the same tree `export otlp` builds', async () => {
    const dir = await replayProject();
    server = await acceptingReceiver();
    const result = await runTeam(
      dir,
      'otlp-run',
      ['--otlp', server.url],
      {},
      'a tiny URL shortener with tests and a README',
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(
      /sent \d+ spans of trace [0-9a-f]{32} to http:\/\/127\.0\.0\.1:\d+\/v1\/traces/,
    );
    expect(server.requests.map((request) => request.path)).toEqual(['/v1/traces']);
    expectTeamTree(received(server.requests[0]), 'otlp-run', false);
    const exported = await exportOtlp(['otlp-run', '--project', dir]);
    expect(spansOf(JSON.parse(exported.stdout) as OtlpTraceRequest)).toEqual(
      spansOf(received(server.requests[0])),
    );
  });

  it('warns, logs a WARNING event and still succeeds when the receiver refuses', async () => {
    const dir = await replayProject();
    server = await startStubServer((_, __, response) => {
      response.statusCode = 403;
    });
    const result = await runTeam(dir, 'refused', ['--otlp', server.url]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(
      /warning: the trace of refused \(\d+ spans\) was not accepted by .*: HTTP 403 Forbidden; the run is not affected/,
    );
    const events = await readEvents(dir, 'refused');
    expect(events.at(-1)).toMatchObject({
      level: 'WARNING',
      event: 'trace.export_failed',
      run_id: 'refused',
    });
  });

  it('sends the trace to Langfuse with Basic auth as the run ends, the secret printed nowhere', async () => {
    const dir = await replayProject();
    const secret = 'sk-lf-run-4c2e-never-printed';
    server = await acceptingReceiver();
    const result = await runTeam(dir, 'lf-run', ['--langfuse', '--json'], {
      LANGFUSE_PUBLIC_KEY: 'pk-lf-run',
      LANGFUSE_SECRET_KEY: secret,
      LANGFUSE_HOST: server.url,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(server.requests.map((request) => request.path)).toEqual(['/api/public/otel/v1/traces']);
    expect(server.requests[0]?.headers.authorization).toBe(
      `Basic ${Buffer.from(`pk-lf-run:${secret}`).toString('base64')}`,
    );
    expect(server.requests[0]?.body).not.toContain(secret);
    expect(`${result.stdout}${result.stderr}`).not.toContain(secret);
    expectTeamTree(received(server.requests[0]), 'lf-run', false);
  });

  it('refuses --langfuse without its keys before the run starts (exit 2)', async () => {
    const dir = await tempProject();
    const result = await runCli(['run', 'team', '--project', dir, '--langfuse'], { env: CLEAN_ENV });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--langfuse needs LANGFUSE_PUBLIC_KEY/);
    await expect(readdir(path.join(dir, '.agent', 'runs'))).rejects.toThrow();
  });
});
