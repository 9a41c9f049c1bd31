import type { ServerResponse } from 'node:http';
import { inspect } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { AgentError, type AgentRequest } from '../../../src/runtime/agents/agent.js';
import {
  createOpenAiAgent,
  type OpenAiAgentConfig,
  type OpenAiAgentOptions,
} from '../../../src/runtime/agents/openai-agent.js';
import { startStubServer, type StubRequest } from '../../helpers/stub-http-server.js';

// Matches none of redactSecrets' shapes, so only redaction by value can keep it out of messages.
const KEY = 'k3y-plain-0123456789-never-shown';

type Respond = (request: StubRequest, response: ServerResponse, index: number) => void;

interface Stub {
  readonly baseURL: string;
  readonly requests: StubRequest[];
  close(): Promise<void>;
}

const stubs: Stub[] = [];
afterEach(async () => {
  await Promise.all(stubs.splice(0).map((stub) => stub.close()));
});

/** A chat-completions stand-in on 127.0.0.1 that records every request and answers with `respond`. */
async function startStub(respond: Respond): Promise<Stub> {
  const server = await startStubServer((request, index, response) => {
    respond(request, response, index);
    // Each answer ends its response itself, or on purpose never does (the timeout case).
    return 'hang';
  });
  const stub: Stub = { baseURL: `${server.url}/v1`, requests: server.requests, close: () => server.close() };
  stubs.push(stub);
  return stub;
}

function completion(content: unknown): string {
  return JSON.stringify({
    id: 'chatcmpl-1',
    choices: [{ index: 0, message: { role: 'assistant', content } }],
  });
}

function json(
  response: ServerResponse,
  status: number,
  body: string,
  headers: Record<string, string> = {},
): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(body);
}

function openAiConfig(baseURL: string, extra: Partial<OpenAiAgentConfig> = {}): OpenAiAgentConfig {
  return {
    kind: 'openai',
    baseURL,
    model: 'stub-model',
    apiKeyEnv: 'STUB_API_KEY',
    timeoutMs: 5000,
    maxRetries: 3,
    ...extra,
  };
}

/** Options for a fast suite: waits are recorded instead of slept. */
function fastOptions(sleeps: number[] = []): OpenAiAgentOptions {
  return {
    env: { STUB_API_KEY: KEY },
    baseDelayMs: 10,
    maxDelayMs: 1000,
    random: () => 0.5,
    sleep: (ms) => {
      sleeps.push(ms);
      return Promise.resolve();
    },
  };
}

function request(prompt = 'Write the plan.', signal = new AbortController().signal): AgentRequest {
  return { runId: 'run-1', nodeId: 'planner', prompt, signal };
}

async function failure(promise: Promise<unknown>): Promise<AgentError> {
  const error: unknown = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (!(error instanceof AgentError)) throw new Error(`expected an AgentError, got ${String(error)}`);
  return error;
}

describe('createOpenAiAgent', () => {
  it('POSTs the prompt to <base_url>/chat/completions with the bearer key and returns the content', async () => {
    const stub = await startStub((_request, response) => {
      json(response, 200, completion('# Plan\r\n\n✓ done\n'));
    });
    const config = openAiConfig(`${stub.baseURL}/`, { temperature: 0.2 });
    const agent = createOpenAiAgent('cloud', config, fastOptions());
    expect(agent).toMatchObject({ name: 'cloud', kind: 'openai' });
    await expect(agent.complete(request('Write the plan ✓'))).resolves.toBe('# Plan\r\n\n✓ done\n');
    expect(stub.requests).toHaveLength(1);
    const [sent] = stub.requests;
    expect(sent?.method).toBe('POST');
    expect(sent?.path).toBe('/v1/chat/completions');
    expect(sent?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(sent?.headers['content-type']).toBe('application/json');
    expect(JSON.parse(sent?.body ?? '')).toEqual({
      model: 'stub-model',
      messages: [{ role: 'user', content: 'Write the plan ✓' }],
      temperature: 0.2,
    });
  });

  it("reports the answer's model and token usage to onUsage, and leaves out what the answer lacks", async () => {
    const stub = await startStub((_request, response, index) => {
      const body = JSON.parse(completion('ok')) as Record<string, unknown>;
      json(
        response,
        200,
        JSON.stringify(
          index === 0
            ? { ...body, model: 'stub-model-2025', usage: { prompt_tokens: 12, completion_tokens: 3 } }
            : { ...body, usage: { prompt_tokens: -1, completion_tokens: 'many' } },
        ),
      );
    });
    const agent = createOpenAiAgent('cloud', openAiConfig(stub.baseURL), fastOptions());
    expect(agent.model).toBe('stub-model');
    const usages: unknown[] = [];
    const onUsage = (usage: unknown): void => {
      usages.push(usage);
    };
    await agent.complete({ ...request(), onUsage });
    await agent.complete({ ...request(), onUsage });
    expect(usages).toEqual([{ responseModel: 'stub-model-2025', inputTokens: 12, outputTokens: 3 }, {}]);
  });

  it('leaves temperature out when it is not configured', async () => {
    const stub = await startStub((_request, response) => {
      json(response, 200, completion('ok'));
    });
    await createOpenAiAgent('cloud', openAiConfig(stub.baseURL), fastOptions()).complete(request());
    expect(JSON.parse(stub.requests[0]?.body ?? '')).not.toHaveProperty('temperature');
  });

  it('retries a 429 after the Retry-After the server asked for, then succeeds', async () => {
    const stub = await startStub((_request, response, index) => {
      if (index === 0) json(response, 429, '{"error":{"message":"slow down"}}', { 'retry-after': '0' });
      else json(response, 200, completion('after the wait'));
    });
    const sleeps: number[] = [];
    const agent = createOpenAiAgent('cloud', openAiConfig(stub.baseURL), fastOptions(sleeps));
    await expect(agent.complete(request())).resolves.toBe('after the wait');
    expect(stub.requests).toHaveLength(2);
    expect(sleeps).toEqual([0]);
  });

  it('caps a long Retry-After at maxDelayMs', async () => {
    const stub = await startStub((_request, response, index) => {
      if (index === 0) json(response, 503, 'busy', { 'retry-after': '120' });
      else json(response, 200, completion('ok'));
    });
    const sleeps: number[] = [];
    await createOpenAiAgent('cloud', openAiConfig(stub.baseURL), fastOptions(sleeps)).complete(request());
    expect(sleeps).toEqual([1000]);
  });

  it('gives up on a 500 storm after max_retries + 1 attempts with growing backoff', async () => {
    const stub = await startStub((_request, response) => {
      json(response, 500, '{"error":{"message":"internal failure"}}');
    });
    const sleeps: number[] = [];
    const agent = createOpenAiAgent(
      'cloud',
      openAiConfig(stub.baseURL, { maxRetries: 3 }),
      fastOptions(sleeps),
    );
    const error = await failure(agent.complete(request()));
    expect(error.code).toBe('http_status');
    expect(stub.requests).toHaveLength(4);
    // random() = 0.5 gives three quarters of each step: steps 10, 20, 40 ms.
    expect(sleeps).toEqual([8, 15, 30]);
    expect(error.message).toContain('answered 500');
    expect(error.message).toContain('internal failure');
    expect(error.message).toContain('all 4 attempts failed, max_retries: 3');
  });

  it('fails at once on a 400 without retrying, quoting a short excerpt of the body', async () => {
    const stub = await startStub((_request, response) => {
      json(response, 400, JSON.stringify({ error: { message: `bad model ${'x'.repeat(2000)}` } }));
    });
    const sleeps: number[] = [];
    const error = await failure(
      createOpenAiAgent('cloud', openAiConfig(stub.baseURL), fastOptions(sleeps)).complete(request()),
    );
    expect(error.code).toBe('http_status');
    expect(stub.requests).toHaveLength(1);
    expect(sleeps).toEqual([]);
    expect(error.message).toContain('answered 400');
    expect(error.message).toContain('bad model');
    expect(error.message.length).toBeLessThan(800);
  });

  it('times out each attempt after timeout_ms and reports timeout once retries are spent', async () => {
    const stub = await startStub(() => undefined);
    const config = openAiConfig(stub.baseURL, { timeoutMs: 150, maxRetries: 1 });
    const error = await failure(createOpenAiAgent('cloud', config, fastOptions()).complete(request()));
    expect(error.code).toBe('timeout');
    expect(stub.requests).toHaveLength(2);
    expect(error.message).toContain('timeout_ms: 150');
  });

  it('reports network after retries when nothing listens at base_url', async () => {
    const stub = await startStub(() => undefined);
    const { baseURL } = stub;
    await stub.close();
    const sleeps: number[] = [];
    const agent = createOpenAiAgent('cloud', openAiConfig(baseURL, { maxRetries: 2 }), fastOptions(sleeps));
    const error = await failure(agent.complete(request()));
    expect(error.code).toBe('network');
    expect(error.message).toContain('ECONNREFUSED');
    expect(sleeps).toHaveLength(2);
  });

  it.each([
    ['a body that is not JSON', '{"choices": [', 'bad_response'],
    ['no choices', '{"choices": []}', 'bad_response'],
    ['null content', completion(null), 'bad_response'],
    ['non-string content', completion(42), 'bad_response'],
    ['whitespace-only content', completion(' \n '), 'empty_reply'],
  ])('fails without retrying on %s', async (_case, body, code) => {
    const stub = await startStub((_request, response) => {
      json(response, 200, body);
    });
    const error = await failure(
      createOpenAiAgent('cloud', openAiConfig(stub.baseURL), fastOptions()).complete(request()),
    );
    expect(error.code).toBe(code);
    expect(stub.requests).toHaveLength(1);
  });

  it.each([
    ['unset', {}],
    ['empty', { STUB_API_KEY: '' }],
    ['not a header-safe key', { STUB_API_KEY: `${KEY}\nsecond line` }],
  ])(
    'fails with missing_api_key when the key variable is %s, without calling the server',
    async (_case, env) => {
      const stub = await startStub((_request, response) => {
        json(response, 200, completion('should not be asked'));
      });
      const options = { ...fastOptions(), env };
      const error = await failure(
        createOpenAiAgent('cloud', openAiConfig(stub.baseURL), options).complete(request()),
      );
      expect(error.code).toBe('missing_api_key');
      expect(error.message).toContain('STUB_API_KEY');
      expect(error.message).not.toContain(KEY);
      expect(stub.requests).toHaveLength(0);
    },
  );

  it.each<[string, number, (authorization: string) => string]>([
    ['a 401 that echoes the key', 401, (authorization) => `Incorrect API key: ${authorization}`],
    ['a 500 storm that echoes the key', 500, (authorization) => `${authorization} failed`],
    ['malformed JSON that echoes the key', 200, (authorization) => `{${authorization}`],
    ['plain text that starts with the key', 200, (authorization) => authorization.slice('Bearer '.length)],
    [
      'a reply without content that echoes the key',
      200,
      (authorization) => JSON.stringify({ authorization }),
    ],
  ])('never puts the key in an error: %s', async (_case, status, echo) => {
    const stub = await startStub((sent, response) => {
      json(response, status, echo(sent.headers.authorization ?? ''));
    });
    const error = await failure(
      createOpenAiAgent('cloud', openAiConfig(stub.baseURL, { maxRetries: 1 }), fastOptions()).complete(
        request(),
      ),
    );
    expect(stub.requests.length).toBeGreaterThan(0);
    expect(error.message).toContain('[REDACTED]');
    expect(error.message).not.toContain(KEY);
    expect(String(error)).not.toContain(KEY);
    // Not even a prefix: JSON.parse's SyntaxError quotes the first characters of its input.
    expect(inspect(error, { depth: 10 })).not.toContain(KEY.slice(0, 8));
  });

  it('stops waiting to retry as soon as the run is aborted', async () => {
    const controller = new AbortController();
    const stub = await startStub((_request, response) => {
      json(response, 500, 'down');
      controller.abort();
    });
    // Real timers and a one-minute backoff: only the abort can end this quickly.
    const options: OpenAiAgentOptions = {
      env: { STUB_API_KEY: KEY },
      baseDelayMs: 60_000,
      maxDelayMs: 60_000,
    };
    // No elapsed-time assert: the test's own timeout (5 s) is far shorter than the one-minute backoff.
    const error = await failure(
      createOpenAiAgent('cloud', openAiConfig(stub.baseURL), options).complete(
        request('go', controller.signal),
      ),
    );
    expect(error.code).toBe('aborted');
    expect(stub.requests).toHaveLength(1);
  });

  it('cancels a request in flight when the run is aborted', async () => {
    const controller = new AbortController();
    const stub = await startStub(() => {
      controller.abort();
    });
    const error = await failure(
      createOpenAiAgent('cloud', openAiConfig(stub.baseURL), fastOptions()).complete(
        request('go', controller.signal),
      ),
    );
    expect(error.code).toBe('aborted');
    expect(stub.requests).toHaveLength(1);
  });

  it.each([
    ['a negative max_retries', { maxRetries: -1 }],
    ['a fractional max_retries', { maxRetries: 1.5 }],
    ['a zero timeout_ms', { timeoutMs: 0 }],
  ])('refuses %s when created', (_case, extra) => {
    expect(() => createOpenAiAgent('cloud', openAiConfig('http://127.0.0.1:9', extra))).toThrow(TypeError);
  });
});
