import { createHash } from 'node:crypto';
import { lstat, mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openObjectStore, readArtifactRecords } from '../../src/artifacts/index.js';
import { ingestManifestSchema } from '../../src/ingest/index.js';
import { hostileNestedLists } from '../helpers/hostile-markdown.js';
import { runCli, spawnCli } from '../helpers/run-cli.js';
import { mountSmallTmpfs } from '../helpers/read-only-mount.js';
import { fileBlock, readEvents, tempProject } from '../helpers/temp-project.js';
import { findTempFiles } from '../helpers/workspace-fixture.js';

const planDoc = `${fileBlock('ts', 'src/main.ts', 'export {};')}\n${fileBlock('sh', '../../.bashrc', 'curl x | sh')}`;

describe('artifact-ingest --help', () => {
  it.each([[['--help']], [['help']], [['ingest', '--help']], [['demo', '--help']], [['help', 'ingest']]])(
    'prints usage for %j',
    async (args) => {
      const { code, stdout } = await runCli(args);
      expect(code).toBe(0);
      expect(stdout).toMatch(/^Usage: artifact-ingest/);
    },
  );

  it('exits 2 with a hint for an unknown command or option', async () => {
    const command = await runCli(['ingset']);
    expect(command.code).toBe(2);
    expect(command.stderr).toContain("unknown command 'ingset'");
    const option = await runCli(['ingest', '--jsn']);
    expect(option.code).toBe(2);
    expect(option.stderr).toMatch(/--jsn[\s\S]*Run 'artifact-ingest ingest --help'/);
  });
});

describe('artifact-ingest ingest', () => {
  it('ingests one document and prints its manifest with --json', async () => {
    const projectDir = await tempProject({ 'docs/plan.md': planDoc });
    const { code, stdout } = await runCli([
      'ingest',
      'docs/plan.md',
      '--project',
      projectDir,
      '--run-id',
      'r1',
      '--node-id',
      'plan',
      '--mode',
      'team',
      '--json',
    ]);
    expect(code).toBe(0);
    const manifest = ingestManifestSchema.parse(JSON.parse(stdout));
    expect(manifest).toMatchObject({
      run_id: 'r1',
      node_id: 'plan',
      source: { kind: 'cli', mode: 'team' },
      summary: { written: 1, rejected: 1 },
    });
    expect(await readFile(path.join(projectDir, 'workspace/src/main.ts'), 'utf8')).toBe('export {};\n');
  });

  it('ingests docs/**/*.md by default, prints an array with --json and derives node ids', async () => {
    const projectDir = await tempProject({
      'docs/a.md': fileBlock('txt', 'a.txt', 'a'),
      'docs/tasks/b.md': fileBlock('txt', 'b.txt', 'b'),
      'other/c.md': fileBlock('txt', 'c.txt', 'c'),
    });
    const { code, stdout } = await runCli(['ingest', '--json', '--run-id', 'r1'], { cwd: projectDir });
    expect(code).toBe(0);
    const manifests = (JSON.parse(stdout) as unknown[]).map((m) => ingestManifestSchema.parse(m));
    expect(manifests.map((m) => [m.source.doc_path, m.node_id])).toEqual([
      ['docs/a.md', 'a'],
      ['docs/tasks/b.md', 'tasks.b'],
    ]);
    expect((await readdir(path.join(projectDir, '.agent/runs/r1/manifests'))).sort()).toEqual([
      'a.json',
      'tasks.b.json',
    ]);
  });

  it('expands globs relative to --project', async () => {
    const projectDir = await tempProject({
      'notes/x.md': fileBlock('txt', 'x.txt', 'x'),
      'notes/y.md': fileBlock('txt', 'y.txt', 'y'),
    });
    const { code, stdout } = await runCli([
      'ingest',
      'notes/*.md',
      '--project',
      projectDir,
      '--run-id',
      'r1',
    ]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/total\s+2\s+2\s+0\s+0\s+0\n/);
  });

  it('prints a human report: each block with its reason, then the summary table', async () => {
    const projectDir = await tempProject({ 'docs/plan.md': planDoc });
    const { stdout } = await runCli(['ingest', '--project', projectDir, '--run-id', 'r1']);
    expect(stdout).toContain('written   workspace/src/main.ts');
    expect(stdout).toMatch(/rejected\s+\.\.\/\.\.\/\.bashrc\s+traversal: /);
    expect(stdout).toMatch(/docs\/plan\.md\s+2\s+1\s+0\s+1\s+0\n/);
    expect(stdout).toContain('events:    .agent/runs/r1/events.jsonl');
  });

  it('writes nothing with --dry-run', async () => {
    const projectDir = await tempProject({ 'docs/plan.md': planDoc });
    const { code, stdout } = await runCli(['ingest', '--project', projectDir, '--dry-run']);
    expect(code).toBe(0);
    expect(stdout).toContain('DRY RUN: nothing was written.');
    expect(await readdir(projectDir)).toEqual(['docs']);
  });

  it('exits 1 with --strict when a block is rejected, 0 without', async () => {
    const projectDir = await tempProject({ 'docs/plan.md': planDoc });
    expect((await runCli(['ingest', '--project', projectDir])).code).toBe(0);
    expect((await runCli(['ingest', '--project', projectDir, '--strict'])).code).toBe(1);
  });

  it.each([
    [['--mode', 'solo'], "--mode 'solo' is not a mode"],
    [['--run-id', '../x'], '--run-id "../x" must match'],
    [['docs/missing.md'], 'docs/missing.md is not a file'],
    [['../outside.md'], 'is outside the project'],
    [['nothing/*.md'], "no documents match 'nothing/*.md'"],
    [['--node-id', 'x', 'docs/plan.md', 'docs/other.md'], '--node-id names one node'],
  ])('exits 2 with a precise error for %j', async (args, message) => {
    const projectDir = await tempProject({ 'docs/plan.md': planDoc, 'docs/other.md': '' });
    const { code, stderr } = await runCli(['ingest', '--project', projectDir, ...args]);
    expect(code).toBe(2);
    expect(stderr).toContain(message);
  });

  it('ingests a document piped into `ingest - --doc-path` in a real process, and refuses one over the limit', async () => {
    expect((await runCli(['ingest', '--help'])).stdout).toContain(
      'artifact-ingest ingest - --doc-path docs/NAME.md [options]',
    );
    const projectDir = await tempProject({
      'artifact-ingest.config.yaml': 'ingest:\n  limits:\n    max_document_bytes: 4096\n',
    });
    const document = `# From a pipe\n\n${fileBlock('ts', 'src/main.ts', 'export {};')}\n${fileBlock('ts', 'workspace/src/p.ts', 'export const p = 1;')}`;
    const piped = await spawnCli(
      ['ingest', '-', '--doc-path', 'docs/from-stdin.md', '--run-id', 'r1', '--json'],
      {
        cwd: projectDir,
        stdin: document,
      },
    );
    expect(piped).toMatchObject({ code: 0, stderr: '' });
    const manifest = ingestManifestSchema.parse(JSON.parse(piped.stdout));
    expect(manifest).toMatchObject({
      node_id: 'from-stdin',
      source: { kind: 'cli', doc_path: 'docs/from-stdin.md' },
      summary: { total_blocks: 2, written: 2 },
    });
    expect(manifest.artifacts[1]?.warnings).toEqual([
      expect.stringMatching(/^workspace_prefix: .*: write file=src\/p\.ts$/),
    ]);
    expect(await readFile(path.join(projectDir, 'docs/from-stdin.md'), 'utf8')).toBe(document);
    expect(await readFile(path.join(projectDir, 'workspace/src/main.ts'), 'utf8')).toBe('export {};\n');
    expect(await readFile(path.join(projectDir, 'workspace/workspace/src/p.ts'), 'utf8')).toBe(
      'export const p = 1;\n',
    );

    // 1 MiB into a 4 KiB limit: reading stops one byte past it, the process ends, and nothing is written.
    const oversized = await spawnCli(['ingest', '-', '--doc-path', 'docs/big.md', '--run-id', 'r2'], {
      cwd: projectDir,
      stdin: 'x'.repeat(1 << 20),
    });
    expect(oversized.code).toBe(2);
    expect(oversized.stderr).toContain('the document in standard input is larger than 4096 bytes');
    await expect(lstat(path.join(projectDir, 'docs/big.md'))).rejects.toThrow(/ENOENT/);
    await expect(lstat(path.join(projectDir, '.agent/runs/r2'))).rejects.toThrow(/ENOENT/);
  });

  it('saves a piped document byte for byte under --node-id and --run-id in a real process, and refuses bad --doc-path flags', async () => {
    const projectDir = await tempProject({ 'docs/answer.md': 'an older answer\n' });
    // CRLF line ends and no final newline: the saved document is the piped bytes, not a re-encoding of them.
    const document = `# Answer\r\n\r\n${fileBlock('py', 'app/main.py', 'print(1)').replace(/\n/g, '\r\n')}tail`;
    const piped = await spawnCli(
      ['ingest', '-', '--doc-path', 'docs/answer.md', '--run-id', 'piped-1', '--node-id', 'coder', '--json'],
      { cwd: projectDir, stdin: document },
    );
    expect(piped).toMatchObject({ code: 0, stderr: '' });
    expect(ingestManifestSchema.parse(JSON.parse(piped.stdout))).toMatchObject({
      run_id: 'piped-1',
      node_id: 'coder',
      summary: { written: 1 },
    });
    expect(await readFile(path.join(projectDir, 'docs/answer.md'), 'utf8')).toBe(document);
    await lstat(path.join(projectDir, '.agent/runs/piped-1/manifests/coder.json'));

    for (const [args, message] of [
      [
        ['ingest', '-'],
        'ingest - needs --doc-path to say where the document read from standard input is saved',
      ],
      [['ingest', '-', '--doc-path', 'docs/../../escape.md'], 'contains a ".." segment'],
      [['ingest', '-', '--doc-path', 'src/answer.md'], 'is not under docs/ or audits/'],
      [['ingest', '-', '--doc-path', '/tmp/answer.md'], 'is absolute'],
    ] as const) {
      const refused = await spawnCli([...args, '--run-id', 'piped-2'], { cwd: projectDir, stdin: document });
      expect(refused.code, args.join(' ')).toBe(2);
      expect(refused.stderr).toContain(message);
    }
    expect(await readFile(path.join(projectDir, 'docs/answer.md'), 'utf8')).toBe(document);
    await expect(lstat(path.join(projectDir, 'escape.md'))).rejects.toThrow(/ENOENT/);
    await expect(lstat(path.join(projectDir, 'src'))).rejects.toThrow(/ENOENT/);
    await expect(lstat(path.join(projectDir, '.agent/runs/piped-2'))).rejects.toThrow(/ENOENT/);
  });

  it('exits 2 when the project has no documents or is not a directory', async () => {
    const projectDir = await tempProject({});
    expect((await runCli(['ingest', '--project', projectDir])).stderr).toContain(
      'no documents match docs/**/*.md',
    );
    expect((await runCli(['ingest', '--project', path.join(projectDir, 'nope')])).code).toBe(2);
  });

  it('exits 2 on a bad config file and names the line', async () => {
    const projectDir = await tempProject({
      'docs/plan.md': planDoc,
      'artifact-ingest.config.yaml': 'ingest:\n  enabeld: true\n',
    });
    const { code, stderr } = await runCli(['ingest', '--project', projectDir]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/enabeld/);
    expect(stderr).toMatch(/:2:/);
  });

  it('keeps events.jsonl whole when several CLI processes ingest into one run at once', async () => {
    const files: Record<string, string> = {};
    for (let n = 0; n < 4; n++)
      files[`docs/d${n}.md`] = Array.from({ length: 50 }, (_, i) =>
        fileBlock('txt', `d${n}/f${i}.txt`, `${n}-${i}`),
      ).join('\n');
    const projectDir = await tempProject(files);
    const runs = Object.keys(files).map((doc) =>
      spawnCli(['ingest', doc, '--project', projectDir, '--run-id', 'shared']),
    );
    expect((await Promise.all(runs)).map((r) => r.code)).toEqual([0, 0, 0, 0]);
    const events = await readEvents(projectDir, 'shared');
    // Per document: ingest.started, 50 ingest.block, ingest.summary.
    expect(events).toHaveLength(4 * 52);
    for (let n = 0; n < 4; n++) {
      expect(events.filter((e) => e.node_id === `d${n}` && e.event === 'ingest.block')).toHaveLength(50);
      expect(events.filter((e) => e.node_id === `d${n}` && e.event === 'ingest.started')).toHaveLength(1);
    }
  });

  it('records each file it places as an artifact, once per content', async () => {
    const projectDir = await tempProject({ 'docs/plan.md': planDoc });
    const ingest = (runId: string) =>
      runCli(['ingest', 'docs/plan.md', '--project', projectDir, '--run-id', runId, '--node-id', 'plan']);

    expect((await ingest('r1')).code).toBe(0);
    expect((await ingest('r1')).code).toBe(0);
    expect((await ingest('r2')).code).toBe(0);

    const { records, problems } = await readArtifactRecords(projectDir, 'r1');
    expect(problems).toEqual([]);
    const hash = `sha256:${createHash('sha256').update('export {};\n').digest('hex')}`;
    // The rejected block is not recorded, and re-ingesting the same content adds nothing.
    expect(records).toEqual([
      expect.objectContaining({
        runId: 'r1',
        taskId: 'plan',
        agentId: 'cli',
        type: 'file',
        path: 'workspace/src/main.ts',
        contentHash: hash,
        metadata: { language: 'ts', bytes: 11, linesAdded: 1, linesRemoved: 0, source: 'ingest' },
      }),
    ]);
    expect((await readArtifactRecords(projectDir, 'r2')).records).toEqual([]);
    const store = await openObjectStore(projectDir);
    try {
      expect(new TextDecoder().decode(await store.get(hash))).toBe('export {};\n');
    } finally {
      await store.close();
    }
  });

  it('warns on stderr and exits 0 when the artifacts cannot be recorded; exits 1 with --strict', async () => {
    const projectDir = await tempProject({ 'docs/plan.md': fileBlock('ts', 'src/a.ts', 'export {};') });
    await mkdir(path.join(projectDir, '.agent'));
    await writeFile(path.join(projectDir, '.agent/objects'), 'not a directory');

    const { code, stderr } = await runCli(['ingest', '--project', projectDir, '--run-id', 'r1']);

    expect(code).toBe(0);
    expect(stderr).toMatch(
      /^artifact-ingest: warning: the files of docs\/plan\.md were not recorded: .*check that \.agent\/ is a writable directory$/m,
    );
    expect(await readFile(path.join(projectDir, 'workspace/src/a.ts'), 'utf8')).toBe('export {};\n');
    // The fail-open path still leaves it in the run's events.
    expect(await readEvents(projectDir, 'r1')).toContainEqual(
      expect.objectContaining({
        level: 'ERROR',
        event: 'artifacts.error',
        code: 'record_failed',
        node_id: 'plan',
      }),
    );

    const strict = await runCli(['ingest', '--project', projectDir, '--run-id', 'r2', '--strict']);
    expect(strict.code).toBe(1);
    expect(strict.stderr).toMatch(
      /^artifact-ingest: error: the files of docs\/plan\.md were not recorded: .*check that \.agent\/ is a writable directory$/m,
    );
    expect(strict.stderr).toMatch(/^artifact-ingest: --strict: 1 recording failed/m);
  });

  it('with .agent/ full, exits 1 under --strict saying what was not recorded, and leaves no temp file in .agent/', async ({
    skip,
  }) => {
    // Eight blocks of 40 KB to 320 KB: the first objects fit in the 256 KiB .agent/, the next ones fail with
    // ENOSPC while others of the same batch are still being written.
    const blocks = Array.from({ length: 8 }, (_, index) =>
      fileBlock(
        'txt',
        `big/f${String(index)}.txt`,
        `${`line ${String(index)} `.repeat(10)}\n`.repeat(700 * (index + 1)),
      ),
    );
    const projectDir = await tempProject({ 'docs/big.md': blocks.join('\n') });
    const agentDir = path.join(projectDir, '.agent');
    await mkdir(agentDir);
    const mount = mountSmallTmpfs(agentDir, '256k');
    if (mount.kind === 'skipped') {
      skip(mount.skip);
      return;
    }
    try {
      const strict = await spawnCli([
        'ingest',
        'docs/big.md',
        '--project',
        projectDir,
        '--run-id',
        'r1',
        '--strict',
      ]);
      expect(strict.code, strict.stderr).toBe(1);
      expect(strict.stderr).toMatch(
        /^artifact-ingest: error: the files of docs\/big\.md were not recorded: .*\(ENOSPC\).*$/m,
      );
      expect(await findTempFiles(agentDir)).toEqual([]);
      // Every file still reached the workspace: only the records are missing.
      expect(await readdir(path.join(projectDir, 'workspace/big'))).toHaveLength(8);

      const open = await spawnCli(['ingest', 'docs/big.md', '--project', projectDir, '--run-id', 'r2']);
      expect(open.code, open.stderr).toBe(0);
      expect(open.stderr).toMatch(
        /^artifact-ingest: warning: the files of docs\/big\.md were not recorded: /m,
      );
      expect(await findTempFiles(agentDir)).toEqual([]);
    } finally {
      mount.release();
    }
  });
});

describe('artifact-ingest ingest of edit blocks', () => {
  it('applies a patch as a new version of the file, and refuses one that does not apply under --strict', async () => {
    const first = fileBlock('ts', 'src/a.ts', 'const a = 1;\nconst b = 2;\n');
    const patch =
      '--- a/src/a.ts\n+++ b/src/a.ts\n@@ -1,2 +1,2 @@\n const a = 1;\n-const b = 2;\n+const b = 3;\n';
    const projectDir = await tempProject({
      'docs/write.md': first,
      'docs/edit.md': fileBlock('diff', 'src/a.ts', patch),
      'docs/stale.md': fileBlock('diff', 'src/a.ts', patch),
    });
    const ingest = (doc: string, ...flags: string[]) =>
      runCli(['ingest', doc, '--project', projectDir, '--run-id', 'r1', ...flags]);

    expect((await ingest('docs/write.md')).code).toBe(0);
    expect((await ingest('docs/edit.md')).code).toBe(0);
    expect(await readFile(path.join(projectDir, 'workspace/src/a.ts'), 'utf8')).toBe(
      'const a = 1;\nconst b = 3;\n',
    );
    const { records } = await readArtifactRecords(projectDir, 'r1');
    expect(records.map((record) => [record.taskId, record.metadata.language])).toEqual([
      ['write', 'ts'],
      ['edit', 'typescript'],
    ]);
    expect(records[1]?.metadata.previous).toBe(records[0]?.artifactId);

    // The same patch again no longer matches the file: rejected, naming the hunk, the file untouched.
    const stale = await ingest('docs/stale.md', '--strict', '--json');
    expect(stale.code).toBe(1);
    const manifest = ingestManifestSchema.parse(JSON.parse(stale.stdout));
    expect(manifest.artifacts[0]?.reason).toMatch(
      /^patch_does_not_apply: hunk 1 \(@@ -1,2 \+1,2 @@\) does not match src\/a\.ts at line 1;/,
    );
    expect(await readFile(path.join(projectDir, 'workspace/src/a.ts'), 'utf8')).toBe(
      'const a = 1;\nconst b = 3;\n',
    );
  });
});

describe('artifact-ingest ingest of a hostile document', () => {
  /** Ingests the hostile reply through the CLI under max_parse_ms 500, with the config's `parser` line, if any. */
  async function ingestHostile(parserLine: string) {
    const projectDir = await tempProject({
      'docs/hostile.md': hostileNestedLists(),
      'artifact-ingest.config.yaml': `ingest:\n${parserLine}  limits:\n    max_parse_ms: 500\n`,
    });
    const args = ['ingest', 'docs/hostile.md', '--project', projectDir, '--run-id', 'r1', '--json'];
    return { projectDir, ...(await spawnCli(args)) };
  }

  it('stops the parse at ingest.limits.max_parse_ms, reports too_complex and exits 0', async () => {
    // micromark: the scanner, the default, parses this document in about a millisecond.
    const { projectDir, code, stdout, stderr } = await ingestHostile('  parser: micromark\n');
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({
      summary: { total_blocks: 0, written: 0 },
      error: { code: 'too_complex' },
    });
    expect(stderr).toBe(
      'artifact-ingest: docs/hostile.md: too_complex: docs/hostile.md took over max_parse_ms (500 ms) to parse; nothing was written\n',
    );
    await expect(readdir(path.join(projectDir, 'workspace'))).rejects.toThrow(/ENOENT/);
  }, 20_000);

  it('writes its block with the scanner, the default parser, under the same limit', async () => {
    const { projectDir, code, stdout, stderr } = await ingestHostile('');
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(JSON.parse(stdout)).toMatchObject({ summary: { total_blocks: 1, written: 1 } });
    expect(await readFile(path.join(projectDir, 'workspace/a.ts'), 'utf8')).toBe('x\n');
  });
});
