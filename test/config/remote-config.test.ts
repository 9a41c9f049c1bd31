import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/config-error.js';
import { loadProjectConfig, parseProjectConfig } from '../../src/config/load-project-config.js';
import { DEFAULT_PROJECT_CONFIG, PROJECT_CONFIG_KEYS } from '../../src/config/project-config.js';
import { PROJECT_CONFIG_FILE } from '../../src/project/index.js';
import { tempProject } from '../helpers/temp-project.js';

const FILE = 'artifact-ingest.config.yaml';
// A password no redaction pattern knows: wherever it were quoted, it would show as it is.
const SECRET = 'Tr0ub4dor-zq-unseen';

/** The ConfigError parsing `text` throws (the test fails if it parses). */
function configErrorOf(text: string): ConfigError {
  try {
    parseProjectConfig(text, FILE, '/p');
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

/** Every form of the error that could reach a person or a log: its text, its issues, and its JSON. */
function everyFormOf(error: ConfigError): string[] {
  return [
    error.message,
    JSON.stringify(error),
    JSON.stringify({ code: error.code, source: error.source, issues: error.issues }),
  ];
}

const remote = (...lines: string[]): string => `remote:\n${lines.map((line) => `  ${line}\n`).join('')}`;
const REQUIRED = ['project: acme/web', 'catalog: postgres://lineage@db/lineage', 'objects: catalog'];

describe('remote: read', () => {
  it('reads the spec example, the catalog URL kept as written', () => {
    const config = parseProjectConfig(
      remote(
        'project: acme/web',
        'catalog: postgres://lineage@db.internal:5432/lineage?sslmode=require&application_name=ai',
        'objects: s3://artifacts-bucket/artifact-ingest',
        's3:',
        '  endpoint: http://127.0.0.1:9000',
        '  region: us-east-1',
        '  force_path_style: true',
      ),
    );
    expect(config.remote).toEqual({
      project: 'acme/web',
      catalog: 'postgres://lineage@db.internal:5432/lineage?sslmode=require&application_name=ai',
      objects: { kind: 's3', bucket: 'artifacts-bucket', prefix: 'artifact-ingest' },
      s3: {
        endpoint: 'http://127.0.0.1:9000',
        region: 'us-east-1',
        forcePathStyle: true,
        checksums: 'when_required',
      },
    });
  });

  it.each([
    [
      'no s3: section',
      [],
      { endpoint: undefined, region: undefined, forcePathStyle: false, checksums: 'when_supported' },
    ],
    [
      'an empty s3: section',
      ['s3:'],
      { endpoint: undefined, region: undefined, forcePathStyle: false, checksums: 'when_supported' },
    ],
    [
      'an endpoint',
      ['s3:', '  endpoint: https://minio.internal'],
      {
        endpoint: 'https://minio.internal',
        region: undefined,
        forcePathStyle: false,
        checksums: 'when_required',
      },
    ],
    [
      'an endpoint, checksums when_supported',
      ['s3:', '  endpoint: https://m', '  checksums: when_supported'],
      { endpoint: 'https://m', region: undefined, forcePathStyle: false, checksums: 'when_supported' },
    ],
    [
      'AWS, checksums when_required',
      ['s3:', '  region: eu-west-3', '  checksums: when_required'],
      { endpoint: undefined, region: 'eu-west-3', forcePathStyle: false, checksums: 'when_required' },
    ],
  ])('fills in the s3 defaults with %s', (_name, lines, s3) => {
    expect(parseProjectConfig(remote(...REQUIRED, ...lines)).remote?.s3).toEqual(s3);
  });

  it("reads docs/configuration.md's example as the page says", async () => {
    const page = await readFile(new URL('../../docs/configuration.md', import.meta.url), 'utf8');
    const example = /```yaml\n(remote:\n[\s\S]*?)```/.exec(page)?.[1];
    expect(example).toBeDefined();
    expect(parseProjectConfig(example!).remote).toEqual({
      project: 'acme/web',
      catalog: 'postgres://lineage@db.internal:5432/lineage?sslmode=require',
      objects: { kind: 's3', bucket: 'artifacts-bucket', prefix: 'artifact-ingest' },
      s3: {
        endpoint: 'http://127.0.0.1:9000',
        region: 'us-east-1',
        forcePathStyle: true,
        checksums: 'when_required',
      },
    });
  });

  it('keeps objects: catalog as the catalog', () => {
    expect(parseProjectConfig(remote(...REQUIRED)).remote?.objects).toEqual({ kind: 'catalog' });
  });

  it.each([
    ['no remote: section', 'ingest:\n  enabled: true\n'],
    ['an empty remote: section', 'remote:\n'],
    ['remote: null', 'remote: null\n'],
  ])('configures no remote with %s', (_name, text) => {
    expect(parseProjectConfig(text).remote).toBeUndefined();
  });

  it('has no remote by default, and lists remote among the top-level keys', () => {
    expect(DEFAULT_PROJECT_CONFIG.remote).toBeUndefined();
    expect(PROJECT_CONFIG_KEYS['remote']).toEqual(['project', 'catalog', 'objects', 's3']);
    expect(PROJECT_CONFIG_KEYS['remote.s3']).toEqual(['endpoint', 'region', 'force_path_style', 'checksums']);
  });
});

describe('remote: refused with a precise message', () => {
  it.each([
    [
      'a remote that is text',
      'remote: acme\n',
      [['remote', 'expected a mapping of project, catalog, objects, s3, got text']],
    ],
    [
      'an empty mapping',
      'remote: {}\n',
      [
        ['remote.project', 'missing; add project: acme/web'],
        ['remote.catalog', 'missing; add catalog: postgres://'],
        ['remote.objects', 'missing; add objects: s3://'],
      ],
    ],
    [
      'a missing project',
      remote(REQUIRED[1]!, REQUIRED[2]!),
      [['remote.project', 'missing; add project: acme/web']],
    ],
    [
      'a project that is a number',
      remote('project: 7', REQUIRED[1]!, REQUIRED[2]!),
      [['remote.project', 'expected text, got 7']],
    ],
    [
      'a project with a leading slash',
      remote('project: /acme', REQUIRED[1]!, REQUIRED[2]!),
      [['remote.project', 'starts with "/"']],
    ],
    [
      'a project with a space',
      remote('project: acme web', REQUIRED[1]!, REQUIRED[2]!),
      [['remote.project', 'holds a space']],
    ],
    [
      'a MySQL catalog',
      remote(REQUIRED[0]!, 'catalog: mysql://db/lineage', REQUIRED[2]!),
      [['remote.catalog', 'is a "mysql" URL; expected postgres:// or postgresql://']],
    ],
    [
      'a catalog without a host',
      remote(REQUIRED[0]!, 'catalog: postgres:///lineage', REQUIRED[2]!),
      [['remote.catalog', 'names no host']],
    ],
    [
      'a catalog in a list',
      remote(REQUIRED[0]!, 'catalog: [postgres://db]', REQUIRED[2]!),
      [['remote.catalog', 'expected text, got a list']],
    ],
    [
      'objects misspelt',
      remote(REQUIRED[0]!, REQUIRED[1]!, 'objects: catlog'),
      [['remote.objects', 'did you mean "catalog"?']],
    ],
    [
      'an upper-case bucket',
      remote(REQUIRED[0]!, REQUIRED[1]!, 'objects: s3://Artifacts/x'),
      [['remote.objects', 'bucket name holds upper case']],
    ],
    [
      'an ftp endpoint',
      remote(...REQUIRED, 's3:', '  endpoint: ftp://m'),
      [['remote.s3.endpoint', 'is a "ftp" URL; expected http:// or https://']],
    ],
    [
      'force_path_style as text',
      remote(...REQUIRED, 's3:', '  force_path_style: yes'),
      [['remote.s3.force_path_style', 'expected true or false, got "yes"']],
    ],
    [
      'unknown checksums',
      remote(...REQUIRED, 's3:', '  checksums: always'),
      [['remote.s3.checksums', 'expected one of when_required, when_supported, got "always"']],
    ],
    [
      's3 as a list',
      remote(...REQUIRED, 's3: [a]'),
      [['remote.s3', 'expected a mapping of endpoint, region, force_path_style, checksums, got a list']],
    ],
    [
      'a misspelt key',
      remote(...REQUIRED, 'objets: catalog'),
      [['remote.objets', 'unknown key "objets"; did you mean "objects"?']],
    ],
    [
      'a misspelt s3 key',
      remote(...REQUIRED, 's3:', '  endpont: http://m'),
      [['remote.s3.endpont', 'unknown key "endpont"; did you mean "endpoint"?']],
    ],
    [
      'a misspelt section',
      `remot:\n  ${REQUIRED[0]!}\n`,
      [['remot', 'unknown key "remot"; did you mean "remote"?']],
    ],
  ])('refuses %s', (_name, text, expected) => {
    const { issues } = configErrorOf(text);
    expect(issues.map((issue) => issue.path)).toEqual(expected.map(([where]) => where));
    for (const [index, [, message]] of expected.entries()) expect(issues[index]?.message).toContain(message);
  });

  it('reports every problem of the file at once, each at its line and column', () => {
    const text = [
      'ingest:', //                        1
      '  fail_mode: sometimes', //         2
      'remote:', //                        3
      '  project: .acme', //               4
      '  catalog: postgres:///x', //       5
      '  objects: s3://ab', //             6
      '  s3:', //                          7
      '    region: us east', //            8
      '',
    ].join('\n');
    expect(
      configErrorOf(text).issues.map(({ path: where, line, column }) => ({ where, line, column })),
    ).toEqual([
      { where: 'ingest.fail_mode', line: 2, column: 14 },
      { where: 'remote.project', line: 4, column: 12 },
      { where: 'remote.catalog', line: 5, column: 12 },
      { where: 'remote.objects', line: 6, column: 12 },
      { where: 'remote.s3.region', line: 8, column: 13 },
    ]);
  });
});

describe('remote: credentials are refused at load, never shown', () => {
  const PG = 'PGPASSWORD (or a password file named by PGPASSFILE)';
  it.each([
    [
      'a password in the catalog URL',
      remote(REQUIRED[0]!, `catalog: postgres://lineage:${SECRET}@db/lineage`, REQUIRED[2]!),
      'remote.catalog',
      3,
      12,
      PG,
    ],
    [
      'a password parameter in the catalog URL',
      remote(
        REQUIRED[0]!,
        `catalog: "postgres://lineage@db/lineage?sslmode=require&password=${SECRET}"`,
        REQUIRED[2]!,
      ),
      'remote.catalog',
      3,
      12,
      PG,
    ],
    ['a password key', remote(...REQUIRED, `password: ${SECRET}`), 'remote.password', 5, 3, PG],
    ['PGPASSWORD as a key', remote(...REQUIRED, `PGPASSWORD: ${SECRET}`), 'remote.PGPASSWORD', 5, 3, PG],
    ['an empty password key', remote(...REQUIRED, 'password:'), 'remote.password', 5, 3, PG],
    [
      'access_key_id',
      remote(...REQUIRED, 's3:', `  access_key_id: AKIA${SECRET}`),
      'remote.s3.access_key_id',
      6,
      5,
      'AWS_ACCESS_KEY_ID',
    ],
    [
      'accessKeyId',
      remote(...REQUIRED, 's3:', `  accessKeyId: ${SECRET}`),
      'remote.s3.accessKeyId',
      6,
      5,
      'AWS_ACCESS_KEY_ID',
    ],
    [
      'AWS_ACCESS_KEY_ID',
      remote(...REQUIRED, `AWS_ACCESS_KEY_ID: ${SECRET}`),
      'remote.AWS_ACCESS_KEY_ID',
      5,
      3,
      'AWS_ACCESS_KEY_ID',
    ],
    [
      'secret_access_key',
      remote(...REQUIRED, 's3:', `  secret_access_key: ${SECRET}`),
      'remote.s3.secret_access_key',
      6,
      5,
      'AWS_SECRET_ACCESS_KEY',
    ],
    [
      'SecretAccessKey',
      remote(...REQUIRED, `SecretAccessKey: ${SECRET}`),
      'remote.SecretAccessKey',
      5,
      3,
      'AWS_SECRET_ACCESS_KEY',
    ],
    [
      'secret-key',
      remote(...REQUIRED, 's3:', `  secret-key: ${SECRET}`),
      'remote.s3.secret-key',
      6,
      5,
      'AWS_SECRET_ACCESS_KEY',
    ],
    [
      'a password under s3',
      remote(...REQUIRED, 's3:', `  password: ${SECRET}`),
      'remote.s3.password',
      6,
      5,
      'AWS_SECRET_ACCESS_KEY',
    ],
    [
      'session_token',
      remote(...REQUIRED, 's3:', `  session_token: ${SECRET}`),
      'remote.s3.session_token',
      6,
      5,
      'AWS_SESSION_TOKEN (or a profile named by AWS_PROFILE)',
    ],
    [
      'SESSION_TOKEN',
      remote(...REQUIRED, `SESSION_TOKEN: ${SECRET}`),
      'remote.SESSION_TOKEN',
      5,
      3,
      'AWS_SESSION_TOKEN',
    ],
    [
      'keys in the objects URL',
      remote(REQUIRED[0]!, REQUIRED[1]!, `objects: s3://AKIAIOSFODNN7EXAMPL3:${SECRET}@bucket/x`),
      'remote.objects',
      4,
      12,
      'AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY',
    ],
    [
      'keys in the endpoint URL',
      remote(...REQUIRED, 's3:', `  endpoint: http://minio:${SECRET}@127.0.0.1:9000`),
      'remote.s3.endpoint',
      6,
      15,
      'AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY',
    ],
    [
      'a password nested under an unknown key',
      remote(...REQUIRED, 'auth:', `  password: ${SECRET}`),
      'remote.auth.password',
      6,
      5,
      PG,
    ],
    [
      'a password in a list',
      remote(...REQUIRED, 's3:', `  - password: ${SECRET}`),
      'remote.s3[0].password',
      6,
      7,
      'AWS_SECRET_ACCESS_KEY',
    ],
    [
      'a password under a catalog mapping',
      remote(REQUIRED[0]!, 'catalog:', `  password: ${SECRET}`, REQUIRED[2]!),
      'remote.catalog.password',
      4,
      5,
      PG,
    ],
  ])('refuses %s, naming where it goes', (_name, text, where, line, column, home) => {
    const error = configErrorOf(text);
    // A credential key's issue is placed on the key and names it, its path the mapping's ("remote.s3:"), so that
    // "remote.s3.password: ..." never reads as an assignment that output redaction blanks out.
    const [, parent = '', key = ''] = /^(.*)\.([^.]+)$/.exec(where) ?? [];
    const inUrl = ['catalog', 'objects', 'endpoint'].includes(key);
    const issue = error.issues.find((candidate) =>
      inUrl
        ? candidate.path === where
        : candidate.path === parent && candidate.message.startsWith(`"${key}" is a credential; `),
    );
    expect(issue, JSON.stringify(error.issues)).toMatchObject({ line, column });
    expect(issue?.message).toContain(`set ${home}`);
    // Never shown, not even redacted: the message does not quote the value at all.
    expect(issue?.message).not.toContain('[REDACTED]');
    for (const form of everyFormOf(error)) expect(form).not.toContain(SECRET);
    // The credential key gets its own message, not "unknown key" as well.
    expect(error.issues.filter((candidate) => candidate.message.includes(`unknown key "${key}"`))).toEqual(
      [],
    );
  });

  it('refuses a password even when the rest of the section is fine, exiting the load with a ConfigError', async () => {
    const dir = await tempProject();
    await writeFile(
      path.join(dir, PROJECT_CONFIG_FILE),
      remote(
        'project: acme/web',
        `catalog: postgres://lineage:${SECRET}@db.internal:5432/lineage?sslmode=require`,
        'objects: catalog',
      ),
    );
    const error = await loadProjectConfig(dir).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toBe(
      `invalid configuration (1 problem):\n  ${path.join(dir, PROJECT_CONFIG_FILE)}:3:12: remote.catalog: holds a password; never write it in the config file: remove it from the URL and set PGPASSWORD (or a password file named by PGPASSFILE) in the environment`,
    );
  });

  it.each([
    ['a password that YAML reads as an alias', `password: *${SECRET}`],
    ['a password left unquoted before a syntax error', `password: "${SECRET}`],
    ['a password written twice', `password: ${SECRET}\n  password: ${SECRET}`],
    ['a password beside a tab', `password: ${SECRET}\n\tx: 1`],
  ])('shows nothing of %s in a YAML error either', (_name, line) => {
    const error = configErrorOf(remote(...REQUIRED, line));
    expect(error.issues.length).toBeGreaterThan(0);
    for (const form of everyFormOf(error)) expect(form).not.toContain(SECRET);
  });

  it('does not take non-credential keys for credentials', () => {
    const { issues } = configErrorOf(
      remote(...REQUIRED, 'user: lineage', 'constructor: x', 'password_file: ~/.pgpass'),
    );
    expect(issues.map((issue) => issue.message)).toEqual([
      expect.stringContaining('unknown key "user"'),
      expect.stringContaining('unknown key "constructor"'),
      expect.stringContaining('unknown key "password_file"'),
    ]);
  });
});
