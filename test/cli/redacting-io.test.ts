import { describe, expect, it } from 'vitest';
import { redactingIo } from '../../src/cli/redacting-io.js';
import type { CliIo } from '../../src/cli/cli-io.js';

const token = 'sk-proj-' + 'GSvyoRClmTEEBHSFSdttcFg_1MXrqCiPYdnpzz';

describe('redactingIo', () => {
  it('passes every text written to stdout and stderr through redactSecrets, and keeps the rest of the io', () => {
    const written: string[] = [];
    const io: CliIo = {
      stdout: { write: (text: string) => written.push(`out:${text}`), isTTY: true, columns: 120 },
      stderr: { write: (text: string) => written.push(`err:${text}`) },
      env: { A: '1' },
      cwd: '/tmp',
    };
    const redacting = redactingIo(io);
    redacting.stdout.write(`key ${token}\n`);
    redacting.stderr.write(`{"message": "password=hunter2x"}\n`);
    expect(written).toEqual(['out:key [REDACTED]\n', 'err:{"message": "password=[REDACTED]"}\n']);
    expect(redacting.stdout.isTTY).toBe(true);
    expect(redacting.stdout.columns).toBe(120);
    expect(redacting.stderr.isTTY).toBe(false);
    expect(redacting.env).toBe(io.env);
    expect(redacting.cwd).toBe('/tmp');
  });

  it('removes LANGFUSE_SECRET_KEY and the values of the OTLP header variables, as given and URL-decoded', () => {
    const written: string[] = [];
    const io: CliIo = {
      stdout: { write: (text: string) => written.push(text) },
      stderr: { write: (text: string) => written.push(text) },
      env: {
        LANGFUSE_SECRET_KEY: 'lf-secret-9911',
        OTEL_EXPORTER_OTLP_HEADERS: 'x-api-key=plain-key-5521,authorization=Bearer%20enc-key-7731',
        OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'x-other=trace-key-3344',
      },
      cwd: '/tmp',
    };
    const redacting = redactingIo(io);
    redacting.stderr.write(
      'lf-secret-9911 plain-key-5521 Bearer%20enc-key-7731 enc-key-7731 trace-key-3344 x-api-key\n',
    );
    expect(written.join('')).not.toMatch(/9911|5521|7731|3344/);
    expect(written.join('')).toContain('x-api-key');
  });

  it('removes the value of OPENLINEAGE_API_KEY by value, whatever its shape, before the credential patterns', () => {
    const written: string[] = [];
    const io: CliIo = {
      stdout: { write: (text: string) => written.push(text) },
      stderr: { write: (text: string) => written.push(text) },
      env: { OPENLINEAGE_API_KEY: 'hunter2xyz', OTHER: 'not-a-key' },
      cwd: '/tmp',
    };
    const redacting = redactingIo(io);
    redacting.stderr.write('server said: Bearer hunter2xyz is wrong; not-a-key stays\n');
    redacting.stdout.write(`${JSON.stringify({ error: { message: 'key "hunter2xyz"' } })}\n`);
    expect(written).toEqual([
      'server said: Bearer [REDACTED] is wrong; not-a-key stays\n',
      '{"error":{"message":"key \\"[REDACTED]\\""}}\n',
    ]);
  });
});

describe('redactingIo and the remote', () => {
  it("removes the remote's credentials by value: PGPASSWORD, the AWS secret and token, a catalog URL's password", () => {
    const written: string[] = [];
    const io: CliIo = {
      stdout: { write: (text: string) => written.push(text) },
      stderr: { write: (text: string) => written.push(text) },
      env: {
        PGPASSWORD: 'pg-Secret-1',
        AWS_SECRET_ACCESS_KEY: 'aws/Secret+2',
        AWS_SESSION_TOKEN: 'token-Secret-3',
        ARTIFACT_INGEST_REMOTE_CATALOG: 'postgres://lineage:url%2FSecret-4@db.internal/lineage',
        AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE-not-secret',
      },
      cwd: '/tmp',
    };
    const redacting = redactingIo(io);
    redacting.stderr.write(
      'pg-Secret-1 aws/Secret+2 token-Secret-3 url/Secret-4 url%2FSecret-4 AKIDEXAMPLE-not-secret\n',
    );
    expect(written).toEqual([
      '[REDACTED] [REDACTED] [REDACTED] [REDACTED] [REDACTED] AKIDEXAMPLE-not-secret\n',
    ]);
  });
});
