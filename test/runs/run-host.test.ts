import { hostname } from 'node:os';
import { describe, expect, it, vi } from 'vitest';
import { ConfigError } from '../../src/config/index.js';
import {
  HOST_ENV_VAR,
  hostNameSchema,
  MAX_HOST_LENGTH,
  resolveRunHost,
  runStateSchema,
  workflowStateHeaderSchema,
} from '../../src/runs/index.js';

/** The ConfigError `resolveRunHost` throws for `env`, or a failure when it returns. */
function refusalOf(env: Record<string, string>, systemHostname?: () => string): ConfigError {
  try {
    const host = systemHostname === undefined ? resolveRunHost(env) : resolveRunHost(env, systemHostname);
    throw new Error(`expected a refusal, got the host ${JSON.stringify(host)}`);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
}

describe('resolveRunHost', () => {
  it.each([
    ['unset', {}, hostname()],
    ['empty', { [HOST_ENV_VAR]: '' }, hostname()],
    ['blank', { [HOST_ENV_VAR]: ' \t ' }, hostname()],
    ['a name', { [HOST_ENV_VAR]: 'ci-runner-7' }, 'ci-runner-7'],
    ['a name with a trailing newline, as $(hostname) gives it', { [HOST_ENV_VAR]: ' ci-7\n' }, 'ci-7'],
    ['a dotted name', { [HOST_ENV_VAR]: 'build-3.eu-west.example.com' }, 'build-3.eu-west.example.com'],
    ['a name of letters beyond ASCII', { [HOST_ENV_VAR]: 'poste-de-zoé' }, 'poste-de-zoé'],
    ['255 characters', { [HOST_ENV_VAR]: 'h'.repeat(MAX_HOST_LENGTH) }, 'h'.repeat(MAX_HOST_LENGTH)],
  ])('records %s as the host', (_case, env, expected) => {
    expect(resolveRunHost(env)).toBe(expected);
  });

  it('reads process.env when given no environment', () => {
    vi.stubEnv(HOST_ENV_VAR, 'from-process-env');
    try {
      expect(resolveRunHost()).toBe('from-process-env');
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it.each([
    ['a newline inside', 'ci\n7', 'U+000A, character 3'],
    ['an escape sequence', '\u001b[31mred', 'U+001B, character 1'],
    ['a NUL', 'ci-7\u0000', 'U+0000, character 5'],
    ['DEL', 'ci\u007f', 'U+007F, character 3'],
    ['a C1 control', 'ci\u0085x', 'U+0085, character 3'],
    ['a right-to-left override', 'ci-\u202e7', 'U+202E, character 4'],
    ['a zero-width space', 'ci\u200b7', 'U+200B, character 3'],
    ['a line separator', 'ci\u20287', 'U+2028, character 3'],
    ['a lone surrogate', 'ci\ud8007', 'U+D800, character 3'],
  ])('refuses a value holding %s, naming the character and where it is', (_case, value, where) => {
    const error = refusalOf({ [HOST_ENV_VAR]: value });
    expect(error.issues).toHaveLength(1);
    expect(error.issues[0]?.path).toBe(HOST_ENV_VAR);
    expect(error.message).toContain(`${HOST_ENV_VAR}: holds a control or invisible character (${where})`);
    expect(error.message).toContain('or unset it to record os.hostname()');
  });

  it('refuses a value over 255 characters, counting characters rather than UTF-16 units', () => {
    expect(resolveRunHost({ [HOST_ENV_VAR]: '🖥'.repeat(MAX_HOST_LENGTH) })).toBe('🖥'.repeat(255));
    const error = refusalOf({ [HOST_ENV_VAR]: 'h'.repeat(MAX_HOST_LENGTH + 1) });
    expect(error.message).toContain(
      `${HOST_ENV_VAR}: is 256 characters long, over the 255 a host name may have; set it to a name for this machine`,
    );
  });

  it('never echoes the refused value', () => {
    const value = `secret-looking-${'x'.repeat(300)}`;
    expect(refusalOf({ [HOST_ENV_VAR]: value }).message).not.toContain('secret-looking');
  });

  it('refuses a system host name it could not store, asking for the variable (an empty os.hostname())', () => {
    const error = refusalOf({}, () => '');
    expect(error.message).toContain(
      `${HOST_ENV_VAR}: is unset, and this machine's host name (os.hostname()) is empty; set ${HOST_ENV_VAR}`,
    );
    expect(resolveRunHost({ [HOST_ENV_VAR]: 'named' }, () => '')).toBe('named');
  });
});

describe('hostNameSchema', () => {
  it.each([
    ['ci-7', true],
    ['', false],
    ['a\tb', false],
    ['h'.repeat(256), false],
  ])('judges %j (valid: %s)', (value, valid) => {
    expect(hostNameSchema.safeParse(value).success).toBe(valid);
  });

  it('makes a graph state with an unprintable host invalid, naming the field', () => {
    const state = {
      version: 1,
      run_id: 'r1',
      host: 'ci\n7',
      status: 'completed',
      graph: { name: 'g', hash: 'h', source: 's' },
      mode: 'team',
      inputs: {},
      ingest_enabled: false,
      created_at: '2026-01-01T00:00:00.000Z',
      updated_at: '2026-01-01T00:00:00.000Z',
      nodes: {},
    };
    const parsed = runStateSchema.safeParse(state);
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]).toMatchObject({ path: ['host'] });
    const old: Record<string, unknown> = { ...state };
    delete old.host;
    expect(runStateSchema.safeParse(old).success).toBe(true);
  });

  it("leaves a workflow header's unprintable host out instead of failing the header", () => {
    const header = {
      kind: 'workflow',
      workflow: 'w',
      status: 'running',
      started_at: '2026-01-01T00:00:00.000Z',
      updated_at: '2026-01-01T00:00:00.000Z',
      step_index: 0,
    };
    expect(workflowStateHeaderSchema.parse({ ...header, host: 'ci\n7' }).host).toBeUndefined();
    expect(workflowStateHeaderSchema.parse({ ...header, host: 'ci-7' }).host).toBe('ci-7');
    expect(workflowStateHeaderSchema.parse(header)).not.toHaveProperty('host');
  });
});
