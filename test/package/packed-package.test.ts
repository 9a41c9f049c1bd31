import { existsSync } from 'node:fs';
import { readFile, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packPackage, REPO, runProgram, type PackedPackage } from './packed-package.js';

let packed: PackedPackage;

beforeAll(async () => {
  packed = await packPackage();
});

afterAll(async () => {
  await packed.remove();
});

/** Checks a consumer runs against the package: the same script text works from .cjs (require) and .mjs. */
const CONSUMER_CHECKS = `
const checks = {
  exports: Object.keys(api).sort(),
  blocks: api.parseFences('# t\\n\\n\`\`\`ts file=src/a.ts\\nexport const a = 1;\\n\`\`\`\\n').blocks.map((block) => ({
    lang: block.lang,
    declaredFile: block.declaredFile,
    content: block.content,
  })),
  manifestSchema: typeof api.ingestManifestSchema.safeParse,
  manifestRejectsEmpty: api.ingestManifestSchema.safeParse({}).success,
  idPattern: api.ID_PATTERN instanceof RegExp,
  runId: api.parseRunId('run-1'),
  invalidId: (() => {
    try {
      api.parseRunId('../x');
      return 'no error';
    } catch (error) {
      return error.code;
    }
  })(),
  configSchemaKeys: Object.keys(api.projectConfigJsonSchema().properties).sort(),
  mcpServer: typeof api.createWorkflowMcpServer({ projectDir: process.cwd() }).connect,
  mcpTransport: typeof api.BoundedStdioTransport.prototype.start,
  engineCode: api.workflowErrorCodeOf(new api.WorkflowError('not_started', 'none running')),
};
process.stdout.write(JSON.stringify(checks));
`;

const EXPECTED_CHECKS = {
  blocks: [{ lang: 'ts', declaredFile: 'src/a.ts', content: 'export const a = 1;\n' }],
  manifestSchema: 'function',
  manifestRejectsEmpty: false,
  idPattern: true,
  runId: 'run-1',
  invalidId: 'invalid_id',
  configSchemaKeys: ['agents', 'contracts', 'git', 'ingest', 'remote', 'runtime', 'workflow'],
  mcpServer: 'function',
  mcpTransport: 'function',
  engineCode: 'not_started',
};

/** Runs a consumer script written into the packed project with a real `node`. */
async function runConsumer(file: string, source: string): Promise<Record<string, unknown>> {
  await writeFile(path.join(packed.project, file), source);
  // Some Node 20.19 patch releases still call require(esm) experimental; any other output is a failure.
  const result = await runProgram(process.execPath, ['--disable-warning=ExperimentalWarning', file], {
    cwd: packed.project,
  });
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout) as Record<string, unknown>;
}

describe('the packed tarball', () => {
  it('ships the license, the docs with their JSON Schemas, the demo and the example graph, and no sources', () => {
    expect(packed.files).toEqual(
      expect.arrayContaining([
        'LICENSE',
        'README.md',
        'package.json',
        'dist/index.js',
        'dist/index.d.ts',
        'dist/ai-sdk/index.js',
        'dist/ai-sdk/index.d.ts',
        'dist/cli/main.js',
        'dist/langgraph/index.js',
        'docs/architecture.md',
        'docs/config.schema.json',
        'docs/manifest.schema.json',
        'docs/runtime.md',
        'fixtures/demo/README.md',
        'fixtures/graphs/release-notes.yaml',
        'fixtures/graphs/release-notes-replies/draft.md',
        'fixtures/graphs/release-notes-replies/check.md',
        'docs/contracts.md',
        'docs/contracts/development_result.md',
        'docs/contracts/development_result.schema.json',
        'fixtures/ralph/done/develop.md',
        'fixtures/ralph/blocked/review.md',
      ]),
    );
    expect(packed.files.filter((file) => /^(src|test)\//.test(file))).toEqual([]);
  });

  it('names the repository, homepage and issue tracker', async () => {
    const manifest = JSON.parse(
      await readFile(path.join(packed.packageDir, 'package.json'), 'utf8'),
    ) as Record<string, unknown>;
    expect(manifest).toMatchObject({
      license: 'MIT',
      repository: { type: 'git', url: 'git+https://github.com/artifact-ingest/artifact-ingest.git' },
      homepage: 'https://github.com/artifact-ingest/artifact-ingest#readme',
      bugs: 'https://github.com/artifact-ingest/artifact-ingest/issues',
    });
    // The AI SDK adapter is a subpath of its own (its types for TypeScript's node10 resolution too), never in ".".
    expect(manifest).toMatchObject({
      exports: {
        './ai-sdk': {
          types: './dist/ai-sdk/index.d.ts',
          import: './dist/ai-sdk/index.js',
          default: './dist/ai-sdk/index.js',
        },
      },
      typesVersions: { '*': { 'ai-sdk': ['./dist/ai-sdk/index.d.ts'] } },
      peerDependenciesMeta: { ai: { optional: true } },
    });
    expect(await readFile(path.join(packed.packageDir, 'LICENSE'), 'utf8')).toMatch(
      /^MIT License\n\nCopyright \(c\) 2026 the artifact-ingest authors\n/,
    );
  });

  it('has no source map that points at a file outside the tarball', async () => {
    const shipped = new Set(packed.files);
    const dangling: string[] = [];
    for (const file of packed.files.filter((name) => /\.(?:js|d\.ts|map)$/.test(name))) {
      const text = await readFile(path.join(packed.packageDir, file), 'utf8');
      const targets = [...text.matchAll(/[#@] sourceMappingURL=(\S+)/g)].map((match) => match[1]!);
      if (file.endsWith('.map')) {
        const map = JSON.parse(text) as { sourceRoot?: string; sources?: string[] };
        targets.push(...(map.sources ?? []).map((source) => (map.sourceRoot ?? '') + source));
      }
      for (const target of targets) {
        if (target.startsWith('data:')) continue;
        const resolved = path.posix.normalize(path.posix.join(path.posix.dirname(file), target));
        if (!shipped.has(resolved)) dangling.push(`${file} -> ${target}`);
      }
    }
    expect(dangling).toEqual([]);
  });
});

describe('a consumer of the packed tarball', () => {
  it('require()s the package, the MCP server factory included, from a .cjs file (require(esm), Node 20.19+)', async () => {
    const checks = await runConsumer(
      'consumer.cjs',
      `const api = require('artifact-ingest');\n${CONSUMER_CHECKS}`,
    );
    expect(checks).toMatchObject(EXPECTED_CHECKS);
    // The committed public API (test/index.test.ts pins it on dist/; here it is what an installed copy gives).
    const committed = JSON.parse(await readFile(path.join(REPO, 'test', 'public-api.json'), 'utf8')) as {
      values: string[];
    };
    expect(checks['exports']).toEqual(committed.values);
  });

  it('imports the same named exports from an .mjs file', async () => {
    const required = await runConsumer(
      'same.cjs',
      `const api = require('artifact-ingest');\n${CONSUMER_CHECKS}`,
    );
    const imported = await runConsumer(
      'consumer.mjs',
      `import * as api from 'artifact-ingest';\n${CONSUMER_CHECKS}`,
    );
    expect(imported).toMatchObject(EXPECTED_CHECKS);
    expect(imported['exports']).toEqual(required['exports']);
  });
});

describe('are the types wrong', () => {
  it('finds no problem in the tarball beyond a require of ESM, which Node 20.19+ supports', async () => {
    const attw = path.join(REPO, 'node_modules', '.bin', 'attw');
    // The one rule ignored is the one require(esm) makes moot; engines.node is >=20.19 (docs/decisions.md).
    const result = await runProgram(
      attw,
      [packed.tarball, '--format', 'json', '--ignore-rules', 'cjs-resolves-to-esm', '--no-definitely-typed'],
      { cwd: REPO },
    );
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as {
      analysis: { problems: { kind: string; entrypoint: string; resolutionKind: string }[] };
    };
    expect(
      report.analysis.problems.map(
        (problem) => `${problem.entrypoint} ${problem.kind} ${problem.resolutionKind}`,
      ),
    ).toEqual([
      '. CJSResolvesToESM node16-cjs',
      './ai-sdk CJSResolvesToESM node16-cjs',
      './langgraph CJSResolvesToESM node16-cjs',
    ]);
  });
});

/** The content of the first fenced block opened by `opening` after `marker` in a markdown page. */
function blockAfter(page: string, marker: string, opening: string): string {
  const from = page.indexOf(marker);
  expect(from, `docs/runtime.md should contain ${JSON.stringify(marker)}`).toBeGreaterThanOrEqual(0);
  const start = page.indexOf(`\n${opening}\n`, from);
  expect(start, `a ${opening} block after ${JSON.stringify(marker)}`).toBeGreaterThan(from);
  const fence = /^`+/.exec(opening)![0];
  const bodyStart = start + opening.length + 2;
  const end = page.indexOf(`\n${fence}\n`, bodyStart - 1);
  return page.slice(bodyStart, end + 1);
}

describe('the example graph of docs/runtime.md', () => {
  const graphFile = 'fixtures/graphs/release-notes.yaml';
  const replies = 'fixtures/graphs/release-notes-replies';

  it('ships byte for byte what the page prints, with the replies the page shows', async () => {
    const page = await readFile(path.join(REPO, 'docs/runtime.md'), 'utf8');
    const shipped = (file: string): Promise<string> => readFile(path.join(packed.packageDir, file), 'utf8');
    expect(await shipped(graphFile)).toBe(blockAfter(page, '## Graph format', '```yaml'));
    expect(await shipped(`${replies}/draft.md`)).toBe(blockAfter(page, '`draft.md`:', '````markdown'));
    expect(await shipped(`${replies}/check.md`)).toBe(blockAfter(page, '`check.md`:', '```markdown'));
    expect((await readdir(path.join(packed.packageDir, replies))).sort()).toEqual(['check.md', 'draft.md']);
  });

  it('runs as printed through the installed CLI with the printed configuration', async () => {
    const page = await readFile(path.join(REPO, 'docs/runtime.md'), 'utf8');
    const config = blockAfter(page, 'where `artifact-ingest` is installed', '```yaml');
    const command = /^\$ (npx artifact-ingest run .*)$/m.exec(
      blockAfter(page, 'and run:', '```console'),
    )?.[1];
    expect(command).toBeDefined();
    await writeFile(path.join(packed.project, 'artifact-ingest.config.yaml'), config);

    const result = await runProgram('bash', ['-c', command!], {
      cwd: packed.project,
      // npm_config_offline: npx must find the installed bin, never the registry.
      env: {
        PATH: `${path.join(packed.project, 'node_modules', '.bin')}${path.delimiter}${process.env['PATH'] ?? ''}`,
        npm_config_offline: 'true',
      },
    });
    expect({ code: result.code, stderr: result.stderr }).toEqual({
      code: 0,
      stderr: expect.any(String) as string,
    });
    expect(result.stdout + result.stderr).not.toMatch(/\bfailed\b/);

    const read = (file: string): Promise<string> => readFile(path.join(packed.project, file), 'utf8');
    const draft = await read(`node_modules/artifact-ingest/${replies}/draft.md`);
    expect(await read('docs/release/1.2.0/draft.md')).toBe(draft);
    expect(await read('docs/release/1.2.0/NOTES.md')).toBe(`# Release 1.2.0\n\n${draft}\n`);
    const audits = await readdir(path.join(packed.project, 'audits'));
    expect(audits).toHaveLength(1);
    expect(audits[0]).toMatch(/^release_1\.2\.0_release_notes-.+\.md$/);
    expect(await read(path.join('audits', audits[0]!))).toBe(
      await read(`node_modules/artifact-ingest/${replies}/check.md`),
    );
    expect(await read('workspace/scripts/migrate_1.2.0.sh')).toBe(
      '#!/usr/bin/env bash\nset -euo pipefail\nmkdir -p .agent/runs\n',
    );
    expect(existsSync(path.join(packed.project, '.agent', 'runs'))).toBe(true);
  });
});
