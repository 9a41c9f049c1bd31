import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, type ConfigIssue } from '../../src/config/config-error.js';
import { DEFAULT_INGEST_LIMITS } from '../../src/config/ingest-limits.js';
import { loadProjectConfig, parseProjectConfig } from '../../src/config/load-project-config.js';
import { DEFAULT_PROJECT_CONFIG } from '../../src/config/project-config.js';
import { PROJECT_CONFIG_FILE } from '../../src/project/index.js';

let dir = '';
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'load-config-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The ConfigError `parse` throws (the test fails if it returns). */
function configErrorOf(parse: () => unknown): ConfigError {
  try {
    parse();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

const issuesOf = (text: string): readonly ConfigIssue[] =>
  configErrorOf(() => parseProjectConfig(text, 'artifact-ingest.config.yaml')).issues;

describe('loadProjectConfig', () => {
  it('returns the defaults when the project has no config file', async () => {
    await expect(loadProjectConfig(dir)).resolves.toEqual(DEFAULT_PROJECT_CONFIG);
    expect(DEFAULT_PROJECT_CONFIG).toEqual({
      ingest: {
        enabled: undefined,
        failMode: 'open',
        durability: 'fsync',
        parser: 'scanner',
        limits: DEFAULT_INGEST_LIMITS,
      },
      agents: new Map(),
      runtime: { concurrency: 2, maxRunDocumentBytes: 256 * 1024 * 1024 },
      workflow: {},
      contracts: {},
      remote: undefined,
      git: { export: false, repo: undefined },
    });
  });

  it('reads every key of a complete file', async () => {
    await writeFile(
      path.join(dir, PROJECT_CONFIG_FILE),
      [
        'ingest:',
        '  enabled: true',
        '  fail_mode: closed',
        '  durability: none',
        '  parser: micromark',
        '  limits:',
        '    max_document_bytes: 1048576',
        '    max_block_bytes: 65536',
        '    max_blocks: 20',
        '    max_total_bytes: 524288',
        '    max_parse_ms: 5000',
        '',
      ].join('\n'),
    );
    await expect(loadProjectConfig(dir)).resolves.toEqual({
      ...DEFAULT_PROJECT_CONFIG,
      ingest: {
        enabled: true,
        failMode: 'closed',
        durability: 'none',
        parser: 'micromark',
        limits: {
          maxDocumentBytes: 1048576,
          maxBlockBytes: 65536,
          maxBlocks: 20,
          maxTotalBytes: 524288,
          maxParseMs: 5000,
        },
      },
    });
  });

  it('fills in the defaults for every key a partial file leaves out', async () => {
    await writeFile(path.join(dir, PROJECT_CONFIG_FILE), 'ingest:\n  limits:\n    max_blocks: 50\n');
    const config = await loadProjectConfig(dir);
    expect(config.ingest).toEqual({
      enabled: undefined,
      failMode: 'open',
      durability: 'fsync',
      parser: 'scanner',
      limits: { ...DEFAULT_INGEST_LIMITS, maxBlocks: 50 },
    });
    expect(config.ingest.limits.maxParseMs).toBe(10_000);
  });

  it('gives max_parse_ms the default of the parser chosen: 10 s for the scanner, 30 s for micromark', () => {
    expect(parseProjectConfig('ingest:\n  parser: scanner\n').ingest.limits.maxParseMs).toBe(10_000);
    expect(parseProjectConfig('ingest:\n  parser: micromark\n').ingest).toMatchObject({
      parser: 'micromark',
      limits: { ...DEFAULT_INGEST_LIMITS, maxParseMs: 30_000 },
    });
    const set = 'ingest:\n  parser: micromark\n  limits:\n    max_parse_ms: 700\n';
    expect(parseProjectConfig(set).ingest.limits.maxParseMs).toBe(700);
  });

  it('names the file, line and column in the error it throws', async () => {
    const file = path.join(dir, PROJECT_CONFIG_FILE);
    await writeFile(file, 'ingest:\n  fail_mode: sometimes\n');
    await expect(loadProjectConfig(dir)).rejects.toThrow(`${file}:2:14: ingest.fail_mode:`);
  });

  it('reports a directory in place of the config file as a ConfigError', async () => {
    await mkdir(path.join(dir, PROJECT_CONFIG_FILE));
    await expect(loadProjectConfig(dir)).rejects.toBeInstanceOf(ConfigError);
  });

  it('quotes neither a secret key nor the later lines of a key in its errors', async () => {
    const token = 'ghp_ProjectConfigSecretProjectConfigSecret1';
    await writeFile(
      path.join(dir, PROJECT_CONFIG_FILE),
      `ingest:\n  ${token}: 1\n  ? |\n    first\n    zq-later-line\n  : 2\n`,
    );
    const error = await loadProjectConfig(dir).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConfigError);
    const { message } = error as ConfigError;
    expect(message).toContain(':2:3: ');
    expect(message).not.toContain(token);
    expect(message).not.toContain('zq-later-line');
  });
});

describe('parseProjectConfig defaults', () => {
  it.each([
    ['an empty file', ''],
    ['only comments', '# nothing configured yet\n'],
    ['an empty ingest mapping', 'ingest:\n'],
    ['an empty limits mapping', 'ingest:\n  limits:\n'],
  ])('returns the defaults for %s', (_name, text) => {
    expect(parseProjectConfig(text)).toEqual(DEFAULT_PROJECT_CONFIG);
  });

  it.each([
    ['true', true],
    ['false', false],
    ['on', true],
    ['off', false],
    ['ON', true],
    ['1', true],
    ['0', false],
    ['"1"', true],
    ['"false"', false],
    ["'On'", true],
  ])('reads enabled: %s as %s', (written, expected) => {
    expect(parseProjectConfig(`ingest:\n  enabled: ${written}\n`).ingest.enabled).toBe(expected);
  });
});

describe('parseProjectConfig errors', () => {
  it('reports every problem of a file at once, each at its line and column', () => {
    const text = [
      'ingest:', //                    line 1
      '  enabeld: true', //             line 2: unknown key, a transposition of enabled
      '  fail_mode: sometimes', //      line 3: not open or closed
      '  durability: sync', //          line 4: not fsync or none
      '  limits:', //                   line 5
      '    max_blocks: 0', //           line 6: too small
      '    max_block_bytes: 1.5', //    line 7: not a whole number
      '    max_docment_bytes: 10', //   line 8: unknown key, one letter missing
      '    max_total_bytes: lots', //   line 9: a string
      'extra: 1', //                    line 10: unknown top-level key
      '',
    ].join('\n');
    const error = configErrorOf(() => parseProjectConfig(text, 'artifact-ingest.config.yaml'));
    expect(error.issues.map(({ path: where, line, column }) => ({ where, line, column }))).toEqual([
      { where: 'ingest.enabeld', line: 2, column: 3 },
      { where: 'ingest.fail_mode', line: 3, column: 14 },
      { where: 'ingest.durability', line: 4, column: 15 },
      { where: 'ingest.limits.max_blocks', line: 6, column: 17 },
      { where: 'ingest.limits.max_block_bytes', line: 7, column: 22 },
      { where: 'ingest.limits.max_docment_bytes', line: 8, column: 5 },
      { where: 'ingest.limits.max_total_bytes', line: 9, column: 22 },
      { where: 'extra', line: 10, column: 1 },
    ]);
    const lines = error.message.split('\n');
    expect(lines[0]).toBe('invalid configuration (8 problems):');
    expect(lines).toHaveLength(9);
    expect(lines[1]).toBe(
      '  artifact-ingest.config.yaml:2:3: ingest.enabeld: unknown key "enabeld"; did you mean "enabled"? ' +
        'Rename it, or remove it (allowed here: enabled, fail_mode, durability, parser, limits)',
    );
    expect(error.source).toBe('artifact-ingest.config.yaml');
  });

  it.each([
    ['enabeld', 'enabled'],
    ['Enabled', 'enabled'],
    ['fail-mode', 'fail_mode'],
    ['failMode', 'fail_mode'],
    ['durabilty', 'durability'],
    ['parsr', 'parser'],
    ['limit', 'limits'],
  ])('suggests the key the misspelt ingest.%s meant', (written, meant) => {
    const [issue] = issuesOf(`ingest:\n  ${written}: x\n`);
    expect(issue?.message).toContain(`did you mean "${meant}"?`);
    expect(issue).toMatchObject({ path: `ingest.${written}`, line: 2, column: 3 });
  });

  it('asks to remove an unknown key that resembles nothing', () => {
    const [issue] = issuesOf('ingest:\n  colour: blue\n');
    expect(issue?.message).toBe(
      'unknown key "colour"; remove it (allowed here: enabled, fail_mode, durability, parser, limits)',
    );
  });

  it.each([
    ['enabled: yes', 'ingest.enabled', 'got "yes"; write "enabled: true" or "enabled: false"'],
    ['enabled: 2', 'ingest.enabled', 'got 2;'],
    ['enabled:', 'ingest.enabled', 'got nothing;'],
    ['enabled: [true]', 'ingest.enabled', 'got a list;'],
    ['fail_mode: true', 'ingest.fail_mode', 'got true; write "fail_mode: open" or "fail_mode: closed"'],
    [
      'durability: FSYNC',
      'ingest.durability',
      'got "FSYNC"; write "durability: fsync" or "durability: none"',
    ],
    [
      'parser: commonmark',
      'ingest.parser',
      'got "commonmark"; write "parser: scanner" or "parser: micromark"',
    ],
    ['limits: 100', 'ingest.limits', 'expected a mapping of max_document_bytes, max_block_bytes'],
    ['limits:\n    max_blocks: -5', 'ingest.limits.max_blocks', '-5 is too small'],
    [
      'limits:\n    max_blocks: "500"',
      'ingest.limits.max_blocks',
      'got "500"; write a whole number of blocks',
    ],
    ['limits:\n    max_document_bytes: 1e100', 'ingest.limits.max_document_bytes', 'expected a whole number'],
  ])('explains a type error: %s', (setting, where, expected) => {
    const [issue, ...rest] = issuesOf(`ingest:\n  ${setting}\n`);
    expect(rest).toEqual([]);
    expect(issue?.path).toBe(where);
    expect(issue?.message).toContain(expected);
  });

  it('explains a top level that is not a mapping', () => {
    expect(issuesOf('- ingest\n')).toEqual([
      expect.objectContaining({
        path: '',
        line: 1,
        column: 1,
        message: expect.stringContaining('got a list') as string,
      }),
    ]);
  });

  it('explains an ingest value that is not a mapping, at the value', () => {
    expect(issuesOf('ingest: on\n')).toEqual([
      expect.objectContaining({
        path: 'ingest',
        line: 1,
        column: 9,
        message: expect.stringContaining('got "on"') as string,
      }),
    ]);
  });

  it('reports a YAML syntax error as a ConfigError with its position', () => {
    const issues = issuesOf('ingest:\n  enabled: [true\n  fail_mode: open\n');
    expect(issues.length).toBeGreaterThanOrEqual(1);
    expect(issues[0]).toMatchObject({ path: '', line: 3, column: 3 });
    expect(issues[0]?.message).toMatch(/^YAML syntax error \(\w+\): /);
  });

  it('reports a tab-indented file as a syntax error', () => {
    expect(issuesOf('ingest:\n\tenabled: true\n')[0]?.message).toMatch(/YAML syntax error/);
  });

  it('reports a key written twice, naming it', () => {
    expect(issuesOf('ingest:\n  enabled: true\n  enabled: false\n')).toEqual([
      {
        path: '',
        line: 3,
        column: 3,
        message: 'key "enabled" appears twice in the same mapping; keep only one of them',
      },
    ]);
  });
});
