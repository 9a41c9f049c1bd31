import { describe, expect, it } from 'vitest';
import { ingestManifestSchema } from '../../src/ingest/index.js';
import { runCli } from '../helpers/run-cli.js';
import { fileBlock, tempProject } from '../helpers/temp-project.js';

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
