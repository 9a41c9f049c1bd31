import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/config-error.js';
import { DEFAULT_PROJECT_CONFIG, type ProjectConfig } from '../../src/config/project-config.js';
import {
  INGEST_ENV_VAR,
  resolveIngestEnabled,
  type IngestEnabled,
} from '../../src/ingest/resolve-ingest-enabled.js';

const configWith = (enabled: boolean | undefined): ProjectConfig => ({
  ...DEFAULT_PROJECT_CONFIG,
  ingest: { ...DEFAULT_PROJECT_CONFIG.ingest, enabled },
});

const CLI = [undefined, true, false] as const;
const ENV = [undefined, '', 'on', 'off'] as const;
const CONFIG = [undefined, 'unset', true, false] as const;

/** The expected answer, written as the precedence rule reads: CLI > env > config > default off. */
function expected(
  cli: (typeof CLI)[number],
  env: (typeof ENV)[number],
  config: (typeof CONFIG)[number],
): IngestEnabled {
  if (cli !== undefined) return { enabled: cli, source: 'cli' };
  if (env === 'on' || env === 'off') return { enabled: env === 'on', source: 'env' };
  if (typeof config === 'boolean') return { enabled: config, source: 'config' };
  return { enabled: false, source: 'default' };
}

const COMBINATIONS = CLI.flatMap((cli) =>
  ENV.flatMap((env) => CONFIG.map((config) => [cli, env, config, expected(cli, env, config)] as const)),
);

describe('resolveIngestEnabled precedence', () => {
  it.each(COMBINATIONS)('cli=%s env=%j config=%s gives %o', (cli, env, config, answer) => {
    const input = {
      cli,
      env: env === undefined ? {} : { [INGEST_ENV_VAR]: env },
      config: config === undefined ? undefined : configWith(config === 'unset' ? undefined : config),
    };
    expect(resolveIngestEnabled(input)).toEqual(answer);
  });

  it('covers all 48 combinations', () => {
    expect(COMBINATIONS).toHaveLength(48);
  });

  it('is off by default with no input at all', () => {
    expect(resolveIngestEnabled({})).toEqual({ enabled: false, source: 'default' });
  });

  it('reads only ARTIFACT_INGEST from the environment', () => {
    expect(resolveIngestEnabled({ env: { INGEST: 'on', ARTIFACT_INGEST_X: 'on' } })).toEqual({
      enabled: false,
      source: 'default',
    });
  });
});

describe('ARTIFACT_INGEST values', () => {
  it.each([
    ['1', true],
    ['true', true],
    ['on', true],
    ['TRUE', true],
    [' On ', true],
    ['0', false],
    ['false', false],
    ['off', false],
    ['OFF', false],
    ['\tfalse\n', false],
  ])('reads %j as %s', (value, enabled) => {
    expect(resolveIngestEnabled({ env: { ARTIFACT_INGEST: value } })).toEqual({ enabled, source: 'env' });
  });

  it.each(['', '   '])('treats %j as unset', (value) => {
    expect(resolveIngestEnabled({ env: { ARTIFACT_INGEST: value }, config: configWith(true) })).toEqual({
      enabled: true,
      source: 'config',
    });
  });

  it.each(['yes', 'no', 'enabled', '2', 'tru', 'o n'])('refuses %j with a ConfigError naming it', (value) => {
    let thrown: unknown;
    try {
      resolveIngestEnabled({ env: { ARTIFACT_INGEST: value } });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConfigError);
    const error = thrown as ConfigError;
    expect(error.source).toBe('environment');
    expect(error.issues).toEqual([{ path: 'ARTIFACT_INGEST', message: expect.any(String) as string }]);
    expect(error.message).toContain('ARTIFACT_INGEST');
    expect(error.message).toContain(JSON.stringify(value));
    expect(error.message).toContain('1, true or on');
    expect(error.message).toContain('0, false or off');
  });

  it('refuses an unknown value even when a CLI flag decides, so the typo surfaces', () => {
    expect(() => resolveIngestEnabled({ cli: true, env: { ARTIFACT_INGEST: 'yes' } })).toThrow(ConfigError);
  });
});
