import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/config-error.js';
import { parseProjectConfig } from '../../src/config/load-project-config.js';
import { DEFAULT_PROJECT_CONFIG } from '../../src/config/project-config.js';
import {
  REMOTE_CATALOG_ENV,
  REMOTE_OBJECTS_ENV,
  REMOTE_PROJECT_ENV,
  resolveRemoteSettings,
} from '../../src/config/resolve-remote-settings.js';

const SECRET = 'Tr0ub4dor-zq-unseen';

const FILE_CONFIG = parseProjectConfig(
  [
    'remote:',
    '  project: acme/web',
    '  catalog: postgres://lineage@db.internal:5432/lineage?sslmode=require',
    '  objects: s3://artifacts/ai',
    '  s3:',
    '    endpoint: http://127.0.0.1:9000',
    '    force_path_style: true',
    '',
  ].join('\n'),
);
const FROM_FILE = FILE_CONFIG.remote!;

/** The ConfigError resolving throws (the test fails if it resolves). */
function configErrorOf(resolve: () => unknown): ConfigError {
  try {
    resolve();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('resolveRemoteSettings', () => {
  it('is undefined when neither the file nor the environment configures a remote', () => {
    expect(resolveRemoteSettings(DEFAULT_PROJECT_CONFIG, {})).toBeUndefined();
    expect(
      resolveRemoteSettings(DEFAULT_PROJECT_CONFIG, {
        [REMOTE_CATALOG_ENV]: '',
        [REMOTE_OBJECTS_ENV]: '  ',
        [REMOTE_PROJECT_ENV]: '',
      }),
    ).toBeUndefined();
  });

  it("is the file's section when no variable is set", () => {
    expect(resolveRemoteSettings(FILE_CONFIG, {})).toEqual(FROM_FILE);
  });

  it.each([
    [REMOTE_PROJECT_ENV, 'team/other', { project: 'team/other' }],
    [
      REMOTE_CATALOG_ENV,
      `postgresql://ci:${SECRET}@pg.ci:6432/l?sslmode=disable`,
      { catalog: `postgresql://ci:${SECRET}@pg.ci:6432/l?sslmode=disable` },
    ],
    [REMOTE_OBJECTS_ENV, 'catalog', { objects: { kind: 'catalog' } }],
    [
      REMOTE_OBJECTS_ENV,
      's3://other-bucket/p/q',
      { objects: { kind: 's3', bucket: 'other-bucket', prefix: 'p/q' } },
    ],
  ])('lets %s=%j replace the file', (name, value, replaced) => {
    expect(resolveRemoteSettings(FILE_CONFIG, { [name]: value })).toEqual({ ...FROM_FILE, ...replaced });
  });

  it('takes all three variables over the file at once, keeping its s3 settings', () => {
    const env = {
      [REMOTE_PROJECT_ENV]: 'p2',
      [REMOTE_CATALOG_ENV]: 'postgres://h2/db2',
      [REMOTE_OBJECTS_ENV]: 'catalog',
    };
    expect(resolveRemoteSettings(FILE_CONFIG, env)).toEqual({
      project: 'p2',
      catalog: 'postgres://h2/db2',
      objects: { kind: 'catalog' },
      s3: FROM_FILE.s3,
    });
  });

  it('counts an empty variable as unset, and trims the others', () => {
    expect(
      resolveRemoteSettings(FILE_CONFIG, {
        [REMOTE_PROJECT_ENV]: '',
        [REMOTE_CATALOG_ENV]: '   ',
        [REMOTE_OBJECTS_ENV]: ' catalog\n',
      }),
    ).toEqual({ ...FROM_FILE, objects: { kind: 'catalog' } });
  });

  it('configures a remote from the environment alone, with the s3 defaults', () => {
    expect(
      resolveRemoteSettings(DEFAULT_PROJECT_CONFIG, {
        [REMOTE_PROJECT_ENV]: 'acme/web',
        [REMOTE_CATALOG_ENV]: `postgres://ci:${SECRET}@pg/lineage`,
        [REMOTE_OBJECTS_ENV]: 's3://artifacts',
      }),
    ).toEqual({
      project: 'acme/web',
      catalog: `postgres://ci:${SECRET}@pg/lineage`,
      objects: { kind: 's3', bucket: 'artifacts', prefix: '' },
      s3: { endpoint: undefined, region: undefined, forcePathStyle: false, checksums: 'when_supported' },
    });
  });

  it.each([
    [{ [REMOTE_CATALOG_ENV]: 'postgres://h/db' }, [REMOTE_OBJECTS_ENV, REMOTE_PROJECT_ENV]],
    [{ [REMOTE_PROJECT_ENV]: 'acme', [REMOTE_OBJECTS_ENV]: 'catalog' }, [REMOTE_CATALOG_ENV]],
    [
      { [REMOTE_PROJECT_ENV]: 'acme', [REMOTE_OBJECTS_ENV]: 'catalog', [REMOTE_CATALOG_ENV]: '' },
      [REMOTE_CATALOG_ENV],
    ],
  ])('with no remote: section, names every variable missing from %j', (env, missing) => {
    const error = configErrorOf(() => resolveRemoteSettings(DEFAULT_PROJECT_CONFIG, env));
    expect(error.source).toBe('environment');
    expect(error.issues.map((issue) => issue.path)).toEqual(missing);
    for (const issue of error.issues) {
      expect(issue.message).toMatch(/^is not set, and the config file has no remote: section; /);
      expect(issue.message).toContain(`such as ${issue.path}=`);
    }
  });

  it.each([
    [REMOTE_PROJECT_ENV, '/acme', 'starts with "/"'],
    [REMOTE_PROJECT_ENV, 'a b', 'holds a space'],
    [REMOTE_CATALOG_ENV, `mysql://u:${SECRET}@h/db`, 'is a "mysql" URL'],
    [REMOTE_CATALOG_ENV, `postgres://u:${SECRET}/x@h/db`, 'is not a URL'],
    [REMOTE_CATALOG_ENV, `postgres:///db?password=${SECRET}`, 'names no host'],
    [REMOTE_OBJECTS_ENV, 's3://Bad', 'bucket name holds upper case'],
    [REMOTE_OBJECTS_ENV, 'catalogue', 'did you mean "catalog"?'],
  ])('checks %s=%j as the file is checked: %s', (name, value, problem) => {
    for (const config of [FILE_CONFIG, DEFAULT_PROJECT_CONFIG]) {
      const error = configErrorOf(() =>
        resolveRemoteSettings(config, {
          [REMOTE_PROJECT_ENV]: 'acme',
          [REMOTE_CATALOG_ENV]: 'postgres://h/db',
          [REMOTE_OBJECTS_ENV]: 'catalog',
          [name]: value,
        }),
      );
      expect(error.issues).toEqual([{ path: name, message: expect.stringContaining(problem) as string }]);
      expect(error.message).not.toContain(SECRET);
      expect(JSON.stringify(error)).not.toContain(SECRET);
    }
  });

  it('reports every bad variable at once', () => {
    const error = configErrorOf(() =>
      resolveRemoteSettings(DEFAULT_PROJECT_CONFIG, {
        [REMOTE_PROJECT_ENV]: '.x',
        [REMOTE_CATALOG_ENV]: 'http://h',
      }),
    );
    expect(error.issues.map((issue) => issue.path)).toEqual([
      REMOTE_CATALOG_ENV,
      REMOTE_PROJECT_ENV,
      REMOTE_OBJECTS_ENV,
    ]);
  });

  it('reads process.env when no environment is given', () => {
    const saved = process.env[REMOTE_PROJECT_ENV];
    process.env[REMOTE_PROJECT_ENV] = 'from-process-env';
    try {
      expect(resolveRemoteSettings(FILE_CONFIG)?.project).toBe('from-process-env');
    } finally {
      if (saved === undefined) delete process.env.ARTIFACT_INGEST_REMOTE_PROJECT;
      else process.env[REMOTE_PROJECT_ENV] = saved;
    }
  });
});
