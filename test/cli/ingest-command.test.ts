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
