import { describe, expect, it } from 'vitest';
import { otlpProtocolMismatch, otlpTarget } from '../../src/telemetry/index.js';
import type { OtlpTargetRequest } from '../../src/telemetry/index.js';

type Env = Record<string, string>;

const basic = (user: string, password: string): string =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

describe('otlpTarget', () => {
  it.each<[string, OtlpTargetRequest, Env, string | null]>([
    ['prints when nothing names a receiver', {}, {}, null],
    ['--url gets /v1/traces', { url: 'http://h:4318' }, {}, 'http://h:4318/v1/traces'],
    ['--url keeps a path prefix', { url: 'https://h/otel/' }, {}, 'https://h/otel/v1/traces'],
    [
      '--url wins over the environment',
      { url: 'http://a' },
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://b' },
      'http://a/v1/traces',
    ],
    [
      'the base endpoint gets /v1/traces',
      {},
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://b:4318/' },
      'http://b:4318/v1/traces',
    ],
    [
      'the traces endpoint is taken as is, before the base one',
      {},
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://b', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://t/x' },
      'http://t/x',
    ],
    ['an empty variable counts as unset', {}, { OTEL_EXPORTER_OTLP_ENDPOINT: ' ' }, null],
    [
      '--langfuse: LANGFUSE_HOST under /api/public/otel/v1/traces',
      { langfuse: true },
      { LANGFUSE_PUBLIC_KEY: 'pk', LANGFUSE_SECRET_KEY: 'sk', LANGFUSE_HOST: 'http://lf:3000/' },
      'http://lf:3000/api/public/otel/v1/traces',
    ],
    [
      '--langfuse: LANGFUSE_BASE_URL when LANGFUSE_HOST is unset',
      { langfuse: true },
      {
        LANGFUSE_PUBLIC_KEY: 'pk',
        LANGFUSE_SECRET_KEY: 'sk',
        LANGFUSE_BASE_URL: 'https://us.cloud.langfuse.com',
      },
      'https://us.cloud.langfuse.com/api/public/otel/v1/traces',
    ],
    [
      '--langfuse: Langfuse Cloud when neither is set',
      { langfuse: true },
      { LANGFUSE_PUBLIC_KEY: 'pk', LANGFUSE_SECRET_KEY: 'sk' },
      'https://cloud.langfuse.com/api/public/otel/v1/traces',
    ],
  ])('%s', (_, request, env, endpoint) => {
    const target = otlpTarget(request, env);
    if (!target.ok) throw new Error(target.message);
    expect(target.destination?.endpoint.href ?? null).toBe(endpoint);
  });

  it('sends Basic auth and the ingestion version to Langfuse, the secret and the token kept as secrets', () => {
    const target = otlpTarget(
      { langfuse: true },
      { LANGFUSE_PUBLIC_KEY: 'pk-lf-1', LANGFUSE_SECRET_KEY: 'sk-lf-2' },
    );
    if (!target.ok) throw new Error(target.message);
    expect(target.destination?.headers).toEqual({
      authorization: basic('pk-lf-1', 'sk-lf-2'),
      'x-langfuse-ingestion-version': '4',
    });
    expect(target.destination?.secrets).toEqual([
      'sk-lf-2',
      basic('pk-lf-1', 'sk-lf-2').slice('Basic '.length),
    ]);
  });

  it('merges the headers key by key, the traces ones over the general ones, values URL-decoded', () => {
    const target = otlpTarget(
      { url: 'http://h' },
      {
        OTEL_EXPORTER_OTLP_HEADERS: 'Authorization=Basic%20abc=,x-a=1, x-b = two%2Cthree ',
        OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'x-a=9',
        OTEL_EXPORTER_OTLP_TRACES_TIMEOUT: '2500',
      },
    );
    if (!target.ok) throw new Error(target.message);
    expect(target.destination?.headers).toEqual({
      authorization: 'Basic abc=',
      'x-a': '9',
      'x-b': 'two,three',
    });
    expect(target.destination?.timeoutMs).toBe(2500);
  });

  it.each<[string, OtlpTargetRequest, Env, string, RegExp]>([
    [
      'a URL that is not one',
      { url: 'localhost:4318' },
      {},
      'invalid_url',
      /--url: the URL must start with http/,
    ],
    [
      'credentials in the URL',
      { url: 'http://u:p@h' },
      {},
      'invalid_url',
      /must not carry a user or password/,
    ],
    [
      'a bad base endpoint',
      {},
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'nope' },
      'invalid_url',
      /^OTEL_EXPORTER_OTLP_ENDPOINT: 'nope' is not a URL/,
    ],
    [
      'no public key',
      { langfuse: true },
      { LANGFUSE_SECRET_KEY: 's' },
      'missing_variable',
      /needs LANGFUSE_PUBLIC_KEY/,
    ],
    [
      'no secret key',
      { langfuse: true },
      { LANGFUSE_PUBLIC_KEY: 'p' },
      'missing_variable',
      /needs LANGFUSE_SECRET_KEY/,
    ],
    [
      'a header with no =',
      { url: 'http://h' },
      { OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'secret-token' },
      'invalid_headers',
      /TRACES_HEADERS: entry 1 is not key=value/,
    ],
    [
      'a bad % escape',
      { url: 'http://h' },
      { OTEL_EXPORTER_OTLP_HEADERS: 'a=%zz' },
      'invalid_headers',
      /the value of 'a' is not valid URL encoding/,
    ],
    [
      'a timeout that is no number',
      { url: 'http://h' },
      { OTEL_EXPORTER_OTLP_TIMEOUT: '10s' },
      'invalid_timeout',
      /OTEL_EXPORTER_OTLP_TIMEOUT must be a positive number/,
    ],
  ])('refuses %s', (_, request, env, code, message) => {
    const target = otlpTarget(request, env);
    expect(target).toMatchObject({ ok: false, code });
    if (!target.ok) {
      expect(target.message).toMatch(message);
      expect(target.message).not.toContain('secret-token');
    }
  });

  it('names a protocol other than http/json the environment asks for', () => {
    expect(otlpProtocolMismatch({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toBe(
      'OTEL_EXPORTER_OTLP_PROTOCOL=grpc',
    );
    expect(
      otlpProtocolMismatch({
        OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
      }),
    ).toBeUndefined();
    expect(otlpProtocolMismatch({})).toBeUndefined();
  });
});
