import { parseHttpUrl } from '../project/index.js';

/** OTLP/HTTP's path for traces, appended to a base URL (`--url`, OTEL_EXPORTER_OTLP_ENDPOINT). */
export const OTLP_TRACES_PATH = '/v1/traces';
/** Langfuse's OTLP endpoint under its host (Langfuse docs, "OpenTelemetry endpoint"). */
export const LANGFUSE_OTLP_PATH = '/api/public/otel';
/** Where Langfuse's SDKs send when no host is set. */
export const LANGFUSE_DEFAULT_HOST = 'https://cloud.langfuse.com';

/** The environment variables the trace export reads. */
export const OTLP_ENV = {
  endpoint: 'OTEL_EXPORTER_OTLP_ENDPOINT',
  tracesEndpoint: 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
  headers: 'OTEL_EXPORTER_OTLP_HEADERS',
  tracesHeaders: 'OTEL_EXPORTER_OTLP_TRACES_HEADERS',
  timeout: 'OTEL_EXPORTER_OTLP_TIMEOUT',
  tracesTimeout: 'OTEL_EXPORTER_OTLP_TRACES_TIMEOUT',
  protocol: 'OTEL_EXPORTER_OTLP_PROTOCOL',
  tracesProtocol: 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL',
  langfusePublicKey: 'LANGFUSE_PUBLIC_KEY',
  langfuseSecretKey: 'LANGFUSE_SECRET_KEY',
  langfuseHost: 'LANGFUSE_HOST',
  langfuseBaseUrl: 'LANGFUSE_BASE_URL',
} as const;

/** Where to send a trace: the endpoint, the headers, the values to keep out of every message, the timeout. */
export interface OtlpDestination {
  readonly endpoint: URL;
  readonly headers: Readonly<Record<string, string>>;
  /** Header values (keys, tokens): removed by value from whatever is printed. */
  readonly secrets: readonly string[];
  /** Per request, when the environment sets one (OTEL_EXPORTER_OTLP_TRACES_TIMEOUT, OTEL_EXPORTER_OTLP_TIMEOUT). */
  readonly timeoutMs?: number;
  /** Where the endpoint came from, for messages: `--url`, `--langfuse` or the variable's name. */
  readonly source: string;
}

/** Why a destination cannot be made, naming the flag or variable to fix. */
export type OtlpTargetErrorCode = 'invalid_url' | 'missing_variable' | 'invalid_headers' | 'invalid_timeout';

/** The destination, none (print OTLP/JSON on stdout), or why neither. */
export type OtlpTarget =
  | { readonly ok: true; readonly destination: OtlpDestination | null }
  | { readonly ok: false; readonly code: OtlpTargetErrorCode; readonly message: string };

/** What the command line asked: `--url URL` or `--langfuse` (at most one). */
export interface OtlpTargetRequest {
  readonly url?: string;
  readonly langfuse?: boolean;
}

type Env = Readonly<Record<string, string | undefined>>;

/**
 * Where `export otlp` (and `run --otlp`) sends: `--url U` to exactly `U/v1/traces`; `--langfuse` to
 * `<LANGFUSE_HOST>/api/public/otel/v1/traces` with Basic auth of LANGFUSE_PUBLIC_KEY:LANGFUSE_SECRET_KEY; else,
 * per the OTLP exporter spec, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as is, or OTEL_EXPORTER_OTLP_ENDPOINT with
 * `/v1/traces` appended; else nowhere (null). Headers from OTEL_EXPORTER_OTLP_HEADERS, overridden key by key by
 * OTEL_EXPORTER_OTLP_TRACES_HEADERS, are sent with `--url` and the environment's endpoint.
 */
export function otlpTarget(request: OtlpTargetRequest, env: Env): OtlpTarget {
  const timeout = timeoutOf(env);
  if (!timeout.ok) return timeout;
  const timing = timeout.timeoutMs === undefined ? {} : { timeoutMs: timeout.timeoutMs };
  if (request.langfuse === true) return langfuseTarget(env, timing);
  const headers = headersOf(env);
  if (!headers.ok) return headers;
  const secrets = Object.values(headers.headers).flatMap(secretsOfHeaderValue);
  if (request.url !== undefined) {
    const base = baseUrl(request.url, '--url');
    if (!base.ok) return base;
    const endpoint = withPath(base.url, OTLP_TRACES_PATH);
    return {
      ok: true,
      destination: { endpoint, headers: headers.headers, secrets, ...timing, source: '--url' },
    };
  }
  const traces = nonEmpty(env[OTLP_ENV.tracesEndpoint]);
  if (traces !== undefined) {
    const url = baseUrl(traces, OTLP_ENV.tracesEndpoint);
    if (!url.ok) return url;
    return {
      ok: true,
      destination: {
        endpoint: url.url,
        headers: headers.headers,
        secrets,
        ...timing,
        source: OTLP_ENV.tracesEndpoint,
      },
    };
  }
  const base = nonEmpty(env[OTLP_ENV.endpoint]);
  if (base !== undefined) {
    const url = baseUrl(base, OTLP_ENV.endpoint);
    if (!url.ok) return url;
    return {
      ok: true,
      destination: {
        endpoint: withPath(url.url, OTLP_TRACES_PATH),
        headers: headers.headers,
        secrets,
        ...timing,
        source: OTLP_ENV.endpoint,
      },
    };
  }
  return { ok: true, destination: null };
}

/** The protocol the environment asks for when it is not ours (`grpc`, `http/protobuf`): we send only http/json. */
export function otlpProtocolMismatch(env: Env): string | undefined {
  const name =
    nonEmpty(env[OTLP_ENV.tracesProtocol]) === undefined ? OTLP_ENV.protocol : OTLP_ENV.tracesProtocol;
  const protocol = nonEmpty(env[name]);
  return protocol === undefined || protocol === 'http/json' ? undefined : `${name}=${protocol}`;
}

function langfuseTarget(env: Env, timing: { timeoutMs?: number }): OtlpTarget {
  const publicKey = nonEmpty(env[OTLP_ENV.langfusePublicKey]);
  if (publicKey === undefined) return missing(OTLP_ENV.langfusePublicKey, 'pk-lf-...');
  const secretKey = nonEmpty(env[OTLP_ENV.langfuseSecretKey]);
  if (secretKey === undefined) return missing(OTLP_ENV.langfuseSecretKey, 'sk-lf-...');
  const hostName =
    nonEmpty(env[OTLP_ENV.langfuseHost]) === undefined ? OTLP_ENV.langfuseBaseUrl : OTLP_ENV.langfuseHost;
  const host = baseUrl(nonEmpty(env[hostName]) ?? LANGFUSE_DEFAULT_HOST, hostName);
  if (!host.ok) return host;
  const token = Buffer.from(`${publicKey}:${secretKey}`, 'utf8').toString('base64');
  return {
    ok: true,
    destination: {
      endpoint: withPath(withPath(host.url, LANGFUSE_OTLP_PATH), OTLP_TRACES_PATH),
      // Langfuse asks direct OTLP exporters for its ingestion version 4 (its API reference, "Real-time data").
      headers: { authorization: `Basic ${token}`, 'x-langfuse-ingestion-version': '4' },
      secrets: [secretKey, token],
      ...timing,
      source: '--langfuse',
    },
  };
}

function missing(name: string, example: string): OtlpTarget {
  return {
    ok: false,
    code: 'missing_variable',
    message: `--langfuse needs ${name} (such as ${example}, from the Langfuse project's settings, API keys)`,
  };
}

type Parsed<T> =
  | ({ readonly ok: true } & T)
  | { readonly ok: false; readonly code: OtlpTargetErrorCode; readonly message: string };

/** An http(s) URL without credentials, its fragment dropped. */
function baseUrl(text: string, source: string): Parsed<{ readonly url: URL }> {
  const refuse = (message: string): Parsed<{ readonly url: URL }> => ({
    ok: false,
    code: 'invalid_url',
    message: `${source}: ${message}`,
  });
  const parsed = parseHttpUrl(
    text,
    'http://localhost:4318',
    `credentials as a header in ${OTLP_ENV.headers}`,
  );
  return parsed.ok ? parsed : refuse(parsed.message);
}

/** The URL with `suffix` appended to its path (a trailing slash dropped first), its query kept. */
function withPath(url: URL, suffix: string): URL {
  const next = new URL(url.href);
  next.pathname = `${next.pathname.replace(/\/+$/, '')}${suffix}`;
  return next;
}

/**
 * OTEL_EXPORTER_OTLP_HEADERS, then OTEL_EXPORTER_OTLP_TRACES_HEADERS over it key by key: comma-separated
 * `key=value` pairs, values URL-decoded (the W3C Baggage format the exporter spec names), keys lowercased.
 */
function headersOf(env: Env): Parsed<{ readonly headers: Readonly<Record<string, string>> }> {
  const headers: Record<string, string> = {};
  for (const name of [OTLP_ENV.headers, OTLP_ENV.tracesHeaders]) {
    const text = nonEmpty(env[name]);
    if (text === undefined) continue;
    for (const [index, pair] of text.split(',').entries()) {
      if (pair.trim() === '') continue;
      const at = pair.indexOf('=');
      const key = (at === -1 ? pair : pair.slice(0, at)).trim().toLowerCase();
      // Never the value in a message: it is a key or a token, most of the time.
      if (at === -1 || !/^[!#$%&'*+.^_`|~0-9a-z-]+$/.test(key)) {
        return {
          ok: false,
          code: 'invalid_headers',
          message: `${name}: entry ${index + 1} is not key=value with a header name as key; write it as key1=value1,key2=value2`,
        };
      }
      let value: string;
      try {
        value = decodeURIComponent(pair.slice(at + 1).trim());
      } catch {
        return {
          ok: false,
          code: 'invalid_headers',
          message: `${name}: the value of '${key}' is not valid URL encoding; write a '%' as %25`,
        };
      }
      headers[key] = value;
    }
  }
  return { ok: true, headers };
}

function timeoutOf(env: Env): Parsed<{ readonly timeoutMs?: number }> {
  const name =
    nonEmpty(env[OTLP_ENV.tracesTimeout]) === undefined ? OTLP_ENV.timeout : OTLP_ENV.tracesTimeout;
  const text = nonEmpty(env[name]);
  if (text === undefined) return { ok: true };
  if (!/^\d{1,9}$/.test(text.trim()) || Number(text) === 0) {
    return {
      ok: false,
      code: 'invalid_timeout',
      message: `${name} must be a positive number of milliseconds, such as 10000; got '${text}'`,
    };
  }
  return { ok: true, timeoutMs: Number(text) };
}

/** A header value, and its credential alone when it is `<scheme> <credential>` (a server may echo just that). */
function secretsOfHeaderValue(value: string): string[] {
  const credential = /^[A-Za-z][A-Za-z0-9-]*\s+(\S+)$/.exec(value)?.[1];
  return credential === undefined ? [value] : [value, credential];
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}
