import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { ingestManifestSchema, manifestJsonSchema } from '../../src/ingest/index.js';

const valid = {
  version: '1',
  run_id: 'run-1',
  node_id: 'plan',
  source: { kind: 'graph_runtime', mode: 'team', doc_path: 'docs/plan.md' },
  artifacts: [
    {
      index: 0,
      lang: 'ts',
      declared_file: 'src/a.ts',
      workspace_path: 'workspace/src/a.ts',
      bytes: 1,
      sha256: 'a'.repeat(64),
      status: 'written',
      reason: '',
    },
  ],
  summary: { total_blocks: 1, written: 1, skipped: 0, rejected: 0 },
  ts: '2026-11-21T12:00:00.000Z',
};

/** `valid` plus the entry standing for `count` candidates past max_blocks 1, of which `skipped` are skipped. */
function withOmitted(count: number, summary: Partial<typeof valid.summary> = {}) {
  const omitted = {
    index: 1,
    lang: '',
    declared_file: '',
    workspace_path: '',
    bytes: 0,
    sha256: 'e'.repeat(64),
    status: 'skipped',
    reason: `too_many_blocks: ${String(count)} more candidate blocks were not ingested`,
  };
  return {
    ...valid,
    artifacts: [...valid.artifacts, omitted],
    summary: { total_blocks: 1 + count, written: 1, skipped: count, rejected: 0, ...summary },
  };
}

describe('manifest v1 schema', () => {
  it('matches the JSON Schema published in docs/manifest.schema.json (npm run fixtures:regen)', async () => {
    const published = JSON.parse(
      await readFile(new URL('../../docs/manifest.schema.json', import.meta.url), 'utf8'),
    ) as unknown;
    expect(published).toEqual(manifestJsonSchema());
  });

  it('accepts the seed example shape', () => {
    expect(ingestManifestSchema.safeParse(valid).success).toBe(true);
  });

  it('accepts a last too_many_blocks entry standing for every candidate from its index on', () => {
    expect(ingestManifestSchema.safeParse(withOmitted(57_751)).success).toBe(true);
    // One candidate past the limit: the entry stands for one, as every other entry does.
    expect(ingestManifestSchema.safeParse(withOmitted(1)).success).toBe(true);
  });

  it.each([
    ['an omitted entry whose candidates are not counted as skipped', withOmitted(3, { skipped: 1 })],
    ['an omitted entry standing for no candidate', withOmitted(3, { total_blocks: 1, skipped: 3 })],
    [
      'an omitted entry that is not the last',
      { ...withOmitted(3), artifacts: [...withOmitted(3).artifacts].reverse() },
    ],
    ['an unknown top-level key', { ...valid, extra: 1 }],
    ['a wrong version', { ...valid, version: '2' }],
    ['a bad run id', { ...valid, run_id: '../x' }],
    [
      'a workspace path outside workspace/',
      { ...valid, artifacts: [{ ...valid.artifacts[0], workspace_path: 'src/a.ts' }] },
    ],
    [
      'a summary that does not count the artifacts',
      { ...valid, summary: { ...valid.summary, written: 0, skipped: 1 } },
    ],
    ['a total that differs from the entries', { ...valid, summary: { ...valid.summary, total_blocks: 2 } }],
    ['an uppercase sha256', { ...valid, artifacts: [{ ...valid.artifacts[0], sha256: 'A'.repeat(64) }] }],
    ['a non-ISO timestamp', { ...valid, ts: 'yesterday' }],
  ])('rejects %s', (_name, manifest) => {
    expect(ingestManifestSchema.safeParse(manifest).success).toBe(false);
  });
});
