import { afterEach, describe, expect, it } from 'vitest';
import { facetSourcesFor, openLineageEventsOf } from '../../../src/report/index.js';
import { lineageEndpoint } from '../../../src/report/openlineage/lineage-endpoint.js';
import { sendLineageEvents } from '../../../src/report/openlineage/send-lineage-events.js';
import type {
  LineageSendProgress,
  SendLineageOptions,
} from '../../../src/report/openlineage/send-lineage-events.js';
import { closedPort, startStubServer } from '../../helpers/stub-http-server.js';
import type { StubServer } from '../../helpers/stub-http-server.js';
import { sampleRunReport } from '../../helpers/sample-run-report.js';

const events = openLineageEventsOf(sampleRunReport(), facetSourcesFor('0.1.0'));
// Retries wait a millisecond or so, so the tests do not sit in backoff.
const quick = { baseDelayMs: 1, maxDelayMs: 4, random: () => 0 };

let server: StubServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function optionsFor(url: string, extra: Partial<SendLineageOptions> = {}): SendLineageOptions {
  const endpoint = lineageEndpoint(url);
  if (!endpoint.ok) throw new Error(endpoint.message);
  return { endpoint: endpoint.url, delay: quick, ...extra };
}

describe('sendLineageEvents', () => {
  it('POSTs every event as JSON to /api/v1/lineage, in order, with the API key as a Bearer token', async () => {
    server = await startStubServer((_, __, response) => {
      response.statusCode = 201;
    });
    const result = await sendLineageEvents(events, optionsFor(server.url, { apiKey: 'k-123' }));
    expect(result).toEqual({ accepted: 4, total: 4, failure: null });
    expect(server.requests.map((request) => [request.method, request.path])).toEqual(
      events.map(() => ['POST', '/api/v1/lineage']),
    );
    expect(server.requests.map((request) => JSON.parse(request.body) as unknown)).toEqual(events);
    expect(server.requests[0]?.headers['content-type']).toBe('application/json');
    expect(server.requests[0]?.headers.authorization).toBe('Bearer k-123');
  });

  it('keeps a path prefix of the URL given', async () => {
    server = await startStubServer(() => undefined);
    await sendLineageEvents(events.slice(0, 1), optionsFor(`${server.url}/proxy/marquez/`));
    expect(server.requests.map((request) => request.path)).toEqual(['/proxy/marquez/api/v1/lineage']);
    expect(server.requests[0]?.headers.authorization).toBeUndefined();
  });

  it('retries a 503 twice and goes on when the third answer is 200', async () => {
    server = await startStubServer((_, number, response) => {
      response.statusCode = number < 2 ? 503 : 200;
      if (number < 2) response.write('busy, try later\nmore detail');
    });
    const progress: LineageSendProgress[] = [];
    const result = await sendLineageEvents(
      events,
      optionsFor(server.url, { onProgress: (step) => progress.push(step) }),
    );
    expect(result).toEqual({ accepted: 4, total: 4, failure: null });
    expect(server.requests).toHaveLength(6);
    expect(server.requests[0]?.body).toBe(server.requests[2]?.body);
    expect(progress.filter((step) => step.kind === 'retry')).toMatchObject([
      { index: 0, attempt: 1, reason: 'HTTP 503 Service Unavailable: busy, try later' },
      { index: 0, attempt: 2 },
    ]);
  });

  it('retries a 429 too, waiting what Retry-After asks within the cap', async () => {
    server = await startStubServer((_, number, response) => {
      response.statusCode = number === 0 ? 429 : 201;
      if (number === 0) response.setHeader('retry-after', '3600');
    });
    const progress: LineageSendProgress[] = [];
    const result = await sendLineageEvents(
      events.slice(0, 1),
      optionsFor(server.url, { onProgress: (step) => progress.push(step) }),
    );
    expect(result.failure).toBeNull();
    expect(progress[0]).toMatchObject({ kind: 'retry', delayMs: quick.maxDelayMs });
  });

  it('does not retry a 400 and names the status and the first line of the answer', async () => {
    server = await startStubServer((_, __, response) => {
      response.statusCode = 400;
      response.write('\n{"code":400,"message":"eventTime must not be null"}\nstack...');
    });
    const result = await sendLineageEvents(events, optionsFor(server.url));
    expect(server.requests).toHaveLength(1);
    expect(result).toEqual({
      accepted: 0,
      total: 4,
      failure: {
        code: 'http_status',
        index: 0,
        attempts: 1,
        status: 400,
        message:
          'event 1 of 4 (team START) was not accepted: HTTP 400 Bad Request: {"code":400,"message":"eventTime must not be null"}',
      },
    });
  });

  it('stops at a redirect instead of following it', async () => {
    server = await startStubServer((_, __, response) => {
      response.statusCode = 308;
      response.setHeader('location', 'http://elsewhere.test/api/v1/lineage');
    });
    const result = await sendLineageEvents(events, optionsFor(server.url, { apiKey: 'k' }));
    expect(server.requests).toHaveLength(1);
    expect(result.failure?.message).toMatch(
      /HTTP 308 Permanent Redirect \(a redirect to http:\/\/elsewhere\.test\/api\/v1\/lineage\): give the final address/,
    );
  });

  it('stops at the event not accepted, after the ones that were', async () => {
    server = await startStubServer((_, number, response) => {
      response.statusCode = number === 2 ? 422 : 201;
    });
    const result = await sendLineageEvents(events, optionsFor(server.url));
    expect(result.accepted).toBe(2);
    expect(result.failure).toMatchObject({ index: 2, status: 422 });
    expect(server.requests).toHaveLength(3);
  });

  it('retries a refused connection, then says it cannot reach the server', async () => {
    const port = await closedPort();
    const progress: LineageSendProgress[] = [];
    const result = await sendLineageEvents(
      events,
      optionsFor(`http://127.0.0.1:${port}`, { attempts: 3, onProgress: (step) => progress.push(step) }),
    );
    expect(progress.map((step) => step.kind)).toEqual(['retry', 'retry']);
    expect(result.failure).toEqual({
      code: 'network',
      index: 0,
      attempts: 3,
      status: null,
      message: `event 1 of 4 (team START) was not accepted after 3 attempts: cannot reach http://127.0.0.1:${port} (ECONNREFUSED)`,
    });
  });

  it('gives up on a server that never answers after the timeout of each attempt', async () => {
    server = await startStubServer(() => 'hang');
    const result = await sendLineageEvents(events, optionsFor(server.url, { attempts: 2, timeoutMs: 200 }));
    expect(server.requests).toHaveLength(2);
    expect(result.failure).toMatchObject({
      code: 'timeout',
      attempts: 2,
      message: 'event 1 of 4 (team START) was not accepted after 2 attempts: no answer within 200 ms',
    });
  });

  it('keeps the API key out of every message', async () => {
    server = await startStubServer((_, __, response) => {
      response.statusCode = 401;
      response.write('unauthorized');
    });
    const result = await sendLineageEvents(events, optionsFor(server.url, { apiKey: 'very-secret-key' }));
    expect(result.failure?.message).toMatch(/HTTP 401 Unauthorized: unauthorized/);
    expect(JSON.stringify(result)).not.toContain('very-secret-key');
  });

  it('removes a key of any shape that the answer echoes, before the body and its line are cut', async () => {
    const key = 'hunter2xyz';
    const bodies = [
      // A 503 retried: the reason given to onProgress.
      `busy ${key}`,
      // A Location header naming the key.
      '',
      // The key straddling the 300 characters of the line printed, then the 4096 bytes read.
      `${'x'.repeat(295)}${key}`,
    ];
    server = await startStubServer((_, number, response) => {
      if (number === 0) response.statusCode = 503;
      else if (number === 1) {
        response.statusCode = 302;
        response.setHeader('location', `http://elsewhere.test/?api=${key}`);
      } else response.statusCode = 400;
      response.write(bodies[number] ?? '');
    });
    const progress: LineageSendProgress[] = [];
    const first = await sendLineageEvents(
      events,
      optionsFor(server.url, { apiKey: key, onProgress: (step) => progress.push(step) }),
    );
    const second = await sendLineageEvents(events, optionsFor(server.url, { apiKey: key }));
    expect(progress).toMatchObject([
      { kind: 'retry', reason: 'HTTP 503 Service Unavailable: busy [REDACTED]' },
    ]);
    expect(first.failure?.message).toContain('(a redirect to http://elsewhere.test/?api=[REDACTED])');
    expect(second.failure?.message).toMatch(/: HTTP 400 Bad Request: x{295}\[REDA$/);
    expect(JSON.stringify([progress, first, second])).not.toContain('hunter2');

    await server.close();
    // A long key echoed five times: the 4096 bytes read end inside the fifth, whose start would be printed.
    const longKey = 'Q'.repeat(1000);
    server = await startStubServer((_, __, response) => {
      response.statusCode = 400;
      response.write(longKey.repeat(5));
    });
    const cut = await sendLineageEvents(events, optionsFor(server.url, { apiKey: longKey }));
    expect(cut.failure?.message).toMatch(/: HTTP 400 Bad Request: (\[REDACTED\]){5}$/);
  });
});
