import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readStepBlocks } from '../../../src/report/model/read-step-blocks.js';
import { tempProject } from '../../helpers/temp-project.js';

/** A manifest v1 that would show its one block, were it read. */
const MANIFEST = JSON.stringify({
  version: '1',
  run_id: 'run-001',
  node_id: 'build',
  source: { kind: 'graph_runtime', mode: 'unknown', doc_path: 'docs/a.md' },
  artifacts: [
    {
      index: 0,
      lang: 'text',
      declared_file: 'secret.txt',
      workspace_path: 'workspace/secret.txt',
      bytes: 7,
      sha256: 'a'.repeat(64),
      status: 'written',
      reason: '',
    },
  ],
  summary: { total_blocks: 1, written: 1, skipped: 0, rejected: 0 },
  ts: '2026-01-01T00:00:00.000Z',
});

describe('readStepBlocks', () => {
  it.each([
    ['out of the project by ..', (outside: string) => `../${path.basename(outside)}/secret.json`],
    [
      'out of the run by .. from its manifests',
      (outside: string) =>
        `.agent/runs/run-001/manifests/../../../../../${path.basename(outside)}/secret.json`,
    ],
    ['absolute', (outside: string) => path.join(outside, 'secret.json')],
    ['elsewhere in the project', () => 'workspace/secret.json'],
    ['another folder of the run', () => '.agent/runs/run-001/traces/build.json'],
  ])('never reads a manifest path %s, which no run records, and says so', async (_what, pathOf) => {
    const outside = await tempProject({ 'secret.json': MANIFEST });
    const project = await tempProject({ 'workspace/secret.json': MANIFEST });
    await mkdir(path.join(project, '.agent/runs/run-001/traces'), { recursive: true });
    await writeFile(path.join(project, '.agent/runs/run-001/traces/build.json'), MANIFEST);
    const manifestPath = pathOf(outside);
    const read = await readStepBlocks(project, manifestPath);
    expect(read).toMatchObject({ blocks: [], problem: { code: 'unsafe_manifest_path' } });
    expect('problem' in read ? read.problem.message : '').toMatch(
      /\.agent\/runs\/<run_id>\/manifests\/<node_id>\.json/,
    );
  });

  it('reports an empty manifest path, left by an ingest that failed, as missing_manifest without reading', async () => {
    const project = await tempProject();
    const read = await readStepBlocks(project, '');
    expect(read).toMatchObject({ blocks: [], problem: { code: 'missing_manifest' } });
    expect('problem' in read ? read.problem.message : '').toMatch(/wrote no manifest/);
  });

  it("reads a node's manifest at its place", async () => {
    const project = await tempProject({ '.agent/runs/run-001/manifests/build.json': MANIFEST });
    const read = await readStepBlocks(project, '.agent/runs/run-001/manifests/build.json');
    expect(read.blocks.map((block) => block.workspacePath)).toEqual(['workspace/secret.txt']);
  });
});
