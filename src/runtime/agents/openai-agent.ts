import { describeError, redactLiteralSecrets } from '../../project/index.js';
import { setTimeout as delay } from 'node:timers/promises';
import { redactSecrets } from '../../events/index.js';
import { AgentError, type Agent, type AgentConfig, type AgentRequest, type AgentUsage } from './agent.js';
import { parseRetryAfter, retryDelayMs } from './retry-delay.js';

/** The `openai` agent's configuration. */
export type OpenAiAgentConfig = Extract<AgentConfig, { kind: 'openai' }>;

/** Settings of the `openai` agent that do not come from the config file (tests shrink the delays). */
export interface OpenAiAgentOptions {
  /** Where the key variable named by `apiKeyEnv` is looked up (default `process.env`). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** First backoff step (default 500 ms); step n waits about `baseDelayMs * 2^n`. */
  readonly baseDelayMs?: number;
  /** Cap on any wait, backoff or `Retry-After` (default 20 s). */
  readonly maxDelayMs?: number;
  /** Waits between attempts; must reject when `signal` aborts (default: a timer). */
  readonly sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Jitter source in [0, 1) (default `Math.random`). */
  readonly random?: () => number;
}

/** Characters of a response body quoted in an error message. */
const BODY_EXCERPT_CHARS = 300;

/** An agent that sends the prompt to an OpenAI-compatible `/chat/completions` endpoint. */
export function createOpenAiAgent(
  name: string,
  config: OpenAiAgentConfig,
  options: OpenAiAgentOptions = {},
): Agent {
  if (!Number.isInteger(config.maxRetries) || config.maxRetries < 0) {
    throw new TypeError(`openai agent "${name}": max_retries must be a whole number >= 0`);
  }
  if (!Number.isFinite(config.timeoutMs) || config.timeoutMs <= 0) {
    throw new TypeError(`openai agent "${name}": timeout_ms must be a positive number of milliseconds`);
  }
  const client: OpenAiClient = {
    name,
    config,
    url: chatCompletionsUrl(config.baseURL),
    env: options.env ?? process.env,
    delay: {
      baseDelayMs: options.baseDelayMs ?? 500,
      maxDelayMs: options.maxDelayMs ?? 20_000,
      random: options.random ?? Math.random,
    },
    sleep: options.sleep ?? ((ms, signal) => delay(ms, undefined, { signal })),
  };
  return { name, kind: 'openai', model: config.model, complete: (request) => complete(client, request) };
}

interface OpenAiClient {
  readonly name: string;
  readonly config: OpenAiAgentConfig;
  readonly url: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly delay: Parameters<typeof retryDelayMs>[2];
  readonly sleep: (ms: number, signal: AbortSignal) => Promise<void>;
}

/** One attempt's result: a reply, a failure to report at once, or a failure worth retrying. */
type Attempt =
  | { readonly kind: 'reply'; readonly reply: string; readonly usage: AgentUsage }
  | { readonly kind: 'fatal'; readonly error: AgentError }
  | {
      readonly kind: 'retry';
      readonly code: 'http_status' | 'network' | 'timeout';
      readonly detail: string;
      readonly retryAfterMs?: number;
      readonly cause?: unknown;
    };

/** Joins without doubling the slash: `https://host/v1/` and `https://host/v1` give the same URL. */
function chatCompletionsUrl(baseURL: string): string {
  return `${baseURL.replace(/\/+$/, '')}/chat/completions`;
}

async function complete(client: OpenAiClient, request: AgentRequest): Promise<string> {
  const { config } = client;
  const key = client.env[config.apiKeyEnv]?.trim() ?? '';
  if (key === '') {
    throw new AgentError(
      'missing_api_key',
      `openai agent "${client.name}": the environment variable ${config.apiKeyEnv} (api_key_env) is not set ` +
        `or empty; export ${config.apiKeyEnv}=<your key>, or point api_key_env at the variable that holds it`,
    );
  }
  // fetch would reject such a key with a TypeError that quotes the header, key included.
  if (!/^[\x21-\x7e]+$/.test(key)) {
    throw new AgentError(
      'missing_api_key',
      `openai agent "${client.name}": the environment variable ${config.apiKeyEnv} (api_key_env) holds ` +
        'characters an API key cannot have (spaces, line breaks or non-ASCII); set it to the key alone',
    );
  }
  const secrets = [key];
  const body = JSON.stringify({
    model: config.model,
    messages: [{ role: 'user', content: request.prompt }],
    ...(config.temperature === undefined ? {} : { temperature: config.temperature }),
  });
  const attempts = config.maxRetries + 1;
  for (let attempt = 1; attempt <= attempts; attempt += 1) {
    if (request.signal.aborted)
      throw fail(client, secrets, 'aborted', 'the run was stopped', request.signal.reason);
    const outcome = await attemptOnce(client, request.signal, key, body);
    switch (outcome.kind) {
      case 'reply':
        request.onUsage?.(outcome.usage);
        return outcome.reply;
      case 'fatal':
        throw outcome.error;
      case 'retry':
        if (attempt === attempts) throw exhausted(client, secrets, outcome, attempts);
        try {
          await client.sleep(retryDelayMs(attempt - 1, outcome.retryAfterMs, client.delay), request.signal);
        } catch (error) {
          throw fail(client, secrets, 'aborted', 'the run was stopped while waiting to retry', error);
        }
    }
  }
  // createOpenAiAgent checked that max_retries is a whole number >= 0, so the loop returned or threw.
  throw new TypeError(`openai agent "${client.name}": max_retries must be a whole number >= 0`);
}

function exhausted(
  client: OpenAiClient,
  secrets: readonly string[],
  last: Extract<Attempt, { kind: 'retry' }>,
  attempts: number,
): AgentError {
  const tries = attempts === 1 ? '1 attempt' : `all ${attempts} attempts`;
  const detail = `${last.detail} (${tries} failed, max_retries: ${client.config.maxRetries}); ${adviceFor(last.code)}`;
  return fail(client, secrets, last.code, detail, last.cause);
}

async function attemptOnce(
  client: OpenAiClient,
  runSignal: AbortSignal,
  key: string,
  body: string,
): Promise<Attempt> {
  const secrets = [key];
  const timeout = AbortSignal.timeout(client.config.timeoutMs);
  let status: number;
  let statusText: string;
  let headers: Headers;
  let text: string;
  try {
    const response = await fetch(client.url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        accept: 'application/json',
      },
      body,
      signal: AbortSignal.any([runSignal, timeout]),
    });
    ({ status, statusText, headers } = response);
    // Read inside the try: the per-attempt timeout also bounds a body that trickles in.
    text = await response.text();
  } catch (error) {
    if (runSignal.aborted) {
      return { kind: 'fatal', error: fail(client, secrets, 'aborted', 'the run was stopped', error) };
    }
    if (timeout.aborted) {
      return {
        kind: 'retry',
        code: 'timeout',
        detail: `POST ${client.url} got no complete answer within timeout_ms: ${client.config.timeoutMs}`,
        cause: error,
      };
    }
    return {
      kind: 'retry',
      code: 'network',
      detail: `POST ${client.url} failed: ${networkReason(error)}`,
      cause: error,
    };
  }

  if (status === 429 || status >= 500) {
    const retryAfterMs = parseRetryAfter(headers);
    return {
      kind: 'retry',
      code: 'http_status',
      detail: `POST ${client.url} answered ${status} ${statusText}: ${excerpt(text, secrets)}`,
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    };
  }
  if (status < 200 || status > 299) {
    const detail = `POST ${client.url} answered ${status} ${statusText}: ${excerpt(text, secrets)}; ${adviceForStatus(status)}`;
    return { kind: 'fatal', error: fail(client, secrets, 'http_status', detail) };
  }
  return parseReply(client, secrets, text);
}

function parseReply(client: OpenAiClient, secrets: readonly string[], text: string): Attempt {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    // No cause: V8's SyntaxError quotes the body's first characters, which may be an echoed key.
    const detail = `the server's answer is not JSON: ${excerpt(text, secrets)}; check that base_url is an OpenAI-compatible API`;
    return { kind: 'fatal', error: fail(client, secrets, 'bad_response', detail) };
  }
  const content = messageContent(parsed);
  if (typeof content !== 'string') {
    const detail =
      `the server's answer has no string choices[0].message.content: ${excerpt(text, secrets)}; ` +
      'check that base_url and model point at a chat-completions API';
    return { kind: 'fatal', error: fail(client, secrets, 'bad_response', detail) };
  }
  if (content.trim() === '') {
    const detail = `model ${client.config.model} replied with empty content; check the prompt or the model`;
    return { kind: 'fatal', error: fail(client, secrets, 'empty_reply', detail) };
  }
  return { kind: 'reply', reply: content, usage: usageOf(parsed) };
}

/** The answer's `model` and `usage.prompt_tokens` / `completion_tokens`, where it has them. */
function usageOf(parsed: unknown): AgentUsage {
  if (!isRecord(parsed)) return {};
  const model = parsed['model'];
  const usage = isRecord(parsed['usage']) ? parsed['usage'] : {};
  const count = (value: unknown): number | undefined =>
    typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : undefined;
  const inputTokens = count(usage['prompt_tokens']);
  const outputTokens = count(usage['completion_tokens']);
  return {
    ...(typeof model === 'string' && model !== '' ? { responseModel: model } : {}),
    ...(inputTokens === undefined ? {} : { inputTokens }),
    ...(outputTokens === undefined ? {} : { outputTokens }),
  };
}

/** `choices[0].message.content` of a parsed chat completion, or undefined when any step is missing. */
function messageContent(parsed: unknown): unknown {
  if (!isRecord(parsed) || !Array.isArray(parsed['choices'])) return undefined;
  const choice: unknown = parsed['choices'][0];
  if (!isRecord(choice) || !isRecord(choice['message'])) return undefined;
  return choice['message']['content'];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/** The start of a response body on one line, quoted, with credentials removed before the cut can split one. */
function excerpt(text: string, secrets: readonly string[]): string {
  const oneLine = scrub(text, secrets).replace(/\s+/g, ' ').trim();
  if (oneLine === '') return '(empty body)';
  const cut = oneLine.length > BODY_EXCERPT_CHARS ? `${oneLine.slice(0, BODY_EXCERPT_CHARS)}…` : oneLine;
  return JSON.stringify(cut);
}

/** undici reports "fetch failed" and hides the reason (ECONNREFUSED, ENOTFOUND ...) in `cause`. */
function networkReason(error: unknown): string {
  const cause = error instanceof Error ? error.cause : undefined;
  const code =
    typeof cause === 'object' && cause !== null && 'code' in cause && typeof cause.code === 'string'
      ? cause.code
      : undefined;
  const message = describeError(error);
  return code === undefined ? message : `${message} (${code})`;
}

function adviceFor(code: 'http_status' | 'network' | 'timeout'): string {
  switch (code) {
    case 'http_status':
      return 'the server is overloaded, rate-limiting or failing: try again later, lower --concurrency, or raise max_retries';
    case 'network':
      return 'check base_url and that the server is running and reachable';
    case 'timeout':
      return 'raise timeout_ms, or check that base_url points at a server that answers';
  }
}

function adviceForStatus(status: number): string {
  if (status === 401 || status === 403) return 'check the key in api_key_env and its permissions';
  if (status === 404) return 'check base_url (usually ending in /v1) and model';
  return 'check model, temperature and the prompt against the API';
}

/** Builds the error with every credential removed: known shapes, and the configured key by value. */
function fail(
  client: OpenAiClient,
  secrets: readonly string[],
  code: AgentError['code'],
  detail: string,
  cause?: unknown,
): AgentError {
  const message = scrub(`openai agent "${client.name}": ${detail}`, secrets);
  return new AgentError(code, message, cause === undefined ? undefined : { cause });
}

/** Redacts known credential shapes and, by value, the configured key. */
function scrub(text: string, secrets: readonly string[]): string {
  // First by value: a server may echo the key back in a shape no pattern knows, and a pattern that
  // matched only part of it first would leave the rest unmatchable.
  return redactSecrets(redactLiteralSecrets(text, secrets));
}
