import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ingestManifestSchema } from '../../src/ingest/index.js';
import { runCli } from '../helpers/run-cli.js';
import { fileBlock, readEvents, tempProject } from '../helpers/temp-project.js';

describe('ingest --json', () => {
  it('carries the error of a document that could not be ingested in its own entry', async () => {
    const dir = await tempProject({
      'docs/good.md': fileBlock('txt', 'good.txt', 'good'),
      'docs/bad.md': new Uint8Array([0x60, 0x60, 0x60, 0x0a, 0xff, 0xfe, 0x0a]),
    });
    const result = await runCli(['ingest', 'docs/good.md', 'docs/bad.md', '--json', '--run-id', 'r1'], {
      cwd: dir,
    });
    expect(result.code).toBe(0);
    const [good, bad] = JSON.parse(result.stdout) as Record<string, unknown>[];
    expect(good).not.toHaveProperty('error');
    expect(ingestManifestSchema.parse(good)).toMatchObject({ source: { doc_path: 'docs/good.md' } });
    expect(bad).toMatchObject({
      source: { doc_path: 'docs/bad.md' },
      error: { code: 'invalid_utf8', message: expect.stringContaining('not valid UTF-8') as string },
    });
    // Without the added entry the rest is still a manifest v1.
    const manifest = Object.fromEntries(Object.entries(bad!).filter(([key]) => key !== 'error'));
    expect(() => ingestManifestSchema.parse(manifest)).not.toThrow();
    expect(result.stderr).toContain('docs/bad.md: invalid_utf8:');
  });

  it('exits 1 with --strict for the bad document, still printing both entries', async () => {
    const dir = await tempProject({
      'docs/good.md': fileBlock('txt', 'good.txt', 'good'),
      'docs/bad.md': new Uint8Array([0xff]),
    });
    const result = await runCli(['ingest', '--json', '--strict'], { cwd: dir });
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout)).toHaveLength(2);
  });
});

describe('ingest report', () => {
  it('prints the warning of a file=workspace/... block under its row', async () => {
    const dir = await tempProject({ 'docs/plan.md': fileBlock('ts', 'workspace/src/p.ts', 'export {};') });
    const result = await runCli(['ingest', 'docs/plan.md', '--run-id', 'r1'], { cwd: dir });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      '  written   workspace/workspace/src/p.ts  11 B\n' +
        '  warning   workspace_prefix: file= path starts with workspace/, so the block goes to workspace/workspace/src/p.ts; paths are relative to workspace/: write file=src/p.ts\n',
    );
  });
});

describe('ingest - (one document from standard input)', () => {
  const document = `# Plan\n\n${fileBlock('ts', 'src/a.ts', 'export const a = 1;')}`;

  it.each<[string, string[], string | undefined, string]>([
    [
      'no --doc-path',
      ['-'],
      document,
      'ingest - needs --doc-path to say where the document read from standard input is saved, e.g. --doc-path docs/from-stdin.md',
    ],
    ['another PATH', ['-', 'docs/b.md', '--doc-path', 'docs/a.md'], document, 'give no other PATH or GLOB'],
    ['--doc-path without -', ['docs/b.md', '--doc-path', 'docs/a.md'], document, 'use it with -'],
    ['a path outside docs/', ['-', '--doc-path', 'src/a.md'], document, 'is not under docs/ or audits/'],
    [
      'a path out of the project',
      ['-', '--doc-path', 'docs/../../a.md'],
      document,
      'contains a ".." segment',
    ],
    ['an absolute path', ['-', '--doc-path', '/tmp/a.md'], document, 'is absolute'],
    ['no standard input', ['-', '--doc-path', 'docs/a.md'], undefined, 'there is none here'],
    [
      'an empty input',
      ['-', '--doc-path', 'docs/a.md'],
      '',
      'standard input is empty, so there is no document to save as docs/a.md; nothing was written',
    ],
    [
      'an input over max_document_bytes',
      ['-', '--doc-path', 'docs/a.md'],
      'x'.repeat(65),
      'the document in standard input is larger than 64 bytes (ingest.limits.max_document_bytes); nothing was written',
    ],
  ])('refuses %s with a usage error and writes nothing', async (_name, args, stdin, message) => {
    const dir = await tempProject({
      'docs/b.md': document,
      'artifact-ingest.config.yaml': 'ingest:\n  limits:\n    max_document_bytes: 64\n',
    });
    const result = await runCli(['ingest', ...args, '--run-id', 'r1'], {
      cwd: dir,
      ...(stdin === undefined ? {} : { stdin }),
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
    expect((await readdir(dir)).sort()).toEqual(['artifact-ingest.config.yaml', 'docs']);
    expect(await readdir(path.join(dir, 'docs'))).toEqual(['b.md']);
  });

  it('writes nothing but one invalid_utf8 event for bytes that are not UTF-8, and fails under --strict', async () => {
    const dir = await tempProject();
    const bytes = new Uint8Array([...Buffer.from('```ts file=a.ts\n'), 0xff, 0x0a, ...Buffer.from('```\n')]);
    const args = ['ingest', '-', '--doc-path', 'docs/a.md', '--run-id', 'r1'];
    const result = await runCli(args, { cwd: dir, stdin: bytes });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(
      'docs/a.md: invalid_utf8: docs/a.md is not valid UTF-8; nothing was written',
    );
    expect((await readEvents(dir, 'r1')).map((event) => [event.event, event.level, event.code])).toEqual([
      ['ingest.error', 'ERROR', 'invalid_utf8'],
      ['ingest.summary', 'ERROR', undefined],
    ]);
    expect(await readdir(dir)).toEqual(['.agent']);
    expect(await readdir(path.join(dir, '.agent/runs/r1'))).toEqual(['events.jsonl']);
    expect((await runCli([...args, '--strict'], { cwd: dir, stdin: bytes })).code).toBe(1);
  });

  it('says on stderr that it reads the document when standard input is a terminal', async () => {
    const dir = await tempProject();
    const result = await runCli(['ingest', '-', '--doc-path', 'docs/typed.md', '--json'], {
      cwd: dir,
      stdin: document,
      stdinIsTTY: true,
    });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe(
      'artifact-ingest: reading the document for docs/typed.md from standard input; end it with Ctrl-D (Ctrl-C to cancel)\n',
    );
    expect(ingestManifestSchema.parse(JSON.parse(result.stdout))).toMatchObject({
      node_id: 'typed',
      source: { doc_path: 'docs/typed.md' },
      summary: { written: 1 },
    });
    expect(await readFile(path.join(dir, 'docs/typed.md'), 'utf8')).toBe(document);
  });

  it('saves nothing on a dry run and reports what would be written', async () => {
    const dir = await tempProject();
    const result = await runCli(['ingest', '-', '--doc-path', 'docs/a.md', '--dry-run', '--json'], {
      cwd: dir,
      stdin: document,
    });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      artifacts: [{ workspace_path: 'workspace/src/a.ts', reason: 'dry_run: would write' }],
    });
    expect(await readdir(dir)).toEqual([]);
  });
});

describe('ingest: one word for a file that already holds the bytes (issue 24)', () => {
  it('is skipped with reason unchanged in the block list, the table, the summary line and --json alike', async () => {
    const dir = await tempProject({
      'docs/plan.md': `${fileBlock('txt', 'same.txt', 'same')}\n${fileBlock('sh', '../out.sh', 'x')}`,
    });
    expect((await runCli(['ingest', '--run-id', 'r1'], { cwd: dir })).code).toBe(0);

    const again = await runCli(['ingest', '--run-id', 'r2'], { cwd: dir });
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(
      '  skipped   workspace/same.txt  unchanged: the file already holds exactly these bytes\n',
    );
    expect(again.stdout).toContain(
      'document      blocks  written  skipped  rejected  errors\ndocs/plan.md       2        0        1         1       0\n',
    );
    expect(again.stdout).toContain('skipped: 1 unchanged\nrejected: 1 traversal\n');
    // "unchanged" is only ever a reason, never a status or a column.
    expect(again.stdout).not.toMatch(/^\s*unchanged\b/m);
    expect(again.stdout).not.toMatch(/\bunchanged\s+skipped\b/);

    const json = await runCli(['ingest', '--run-id', 'r3', '--json'], { cwd: dir });
    const manifest = ingestManifestSchema.parse(JSON.parse(json.stdout));
    expect(manifest.summary).toMatchObject({ total_blocks: 2, written: 0, skipped: 1, rejected: 1 });
    expect(manifest.artifacts[0]).toMatchObject({
      status: 'skipped',
      reason: 'unchanged: the file already holds exactly these bytes',
    });
  });
});
