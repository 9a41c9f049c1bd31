import { describe, expect, it } from 'vitest';
import type { ArtifactRecord } from '../../../src/artifacts/artifact-record.js';
import { openVersionDiffer } from '../../../src/artifacts/lineage/diff-versions.js';
import type { ReplayDiff, VersionDifferOptions } from '../../../src/artifacts/lineage/diff-versions.js';
import { openObjectStore } from '../../../src/store/object-store.js';
import { tempProject } from '../../helpers/temp-project.js';
import { parseNodeId, parseRunId } from '../../../src/project/index.js';

const PATH = 'workspace/src/a.ts';

function versionRecord(artifactId: string, contentHash: string): ArtifactRecord {
  return {
    artifactId,
    runId: parseRunId('run-1'),
    taskId: parseNodeId('build'),
    agentId: 'builder',
    type: 'file',
    path: PATH,
    contentHash,
    createdAt: '2026-02-24T10:00:00.000Z',
    metadata: { bytes: 0, linesAdded: 0, linesRemoved: 0, source: 'ingest' },
  };
}

/** Diffs `next` against `previous` (null: a first version) through a real object store. */
async function diffOf(
  previous: string | Uint8Array | null,
  next: string | Uint8Array,
  options: VersionDifferOptions = {},
): Promise<ReplayDiff> {
  const projectDir = await tempProject();
  const store = await openObjectStore(projectDir, { durability: 'none' });
  const nextHash = (await store.put(Buffer.from(next))).hash;
  const versions = new Map<string, ArtifactRecord>();
  if (previous !== null) {
    const previousHash = (await store.put(Buffer.from(previous))).hash;
    versions.set('art-000000000001', versionRecord('art-000000000001', previousHash));
  }
  await store.close();
  const differ = openVersionDiffer(projectDir, versions, options);
  try {
    return await differ.diffOf({
      path: PATH,
      artifactId: 'art-000000000002',
      contentHash: nextHash,
      previous: previous === null ? null : 'art-000000000001',
    });
  } finally {
    await differ.close();
  }
}

const BINARY = Uint8Array.from([0xff, 0xfe, 0x00, 0x01]);

describe('openVersionDiffer', () => {
  it('diffs a first version from empty, naming /dev/null', async () => {
    expect(await diffOf(null, 'a\nb\n')).toEqual({
      kind: 'text',
      patch: `--- /dev/null\n+++ b/${PATH}\tart-000000000002\n@@ -0,0 +1,2 @@\n+a\n+b\n`,
    });
  });

  it('diffs a change from the previous version, both ids in the headers', async () => {
    expect(await diffOf('a\nb\n', 'a\nc\n')).toEqual({
      kind: 'text',
      patch: `--- a/${PATH}\tart-000000000001\n+++ b/${PATH}\tart-000000000002\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n`,
    });
  });

  it('says a diff is too large instead of searching past the bound', async () => {
    const lines = (tag: string): string =>
      Array.from({ length: 20_000 }, (_, i) => `${tag} ${String(i)}\n`).join('');
    expect(await diffOf(lines('old'), lines('new'))).toEqual({
      kind: 'unavailable',
      reason: 'too_large',
      message: `no diff for ${PATH}: more than 500 lines changed, too large to diff; the line counts are in its record`,
    });
  });

  it('diffs an edit as large as the bound, and calls one line more too large', async () => {
    expect((await diffOf('a\nb\n', 'c\nd\n', { maxEditLength: 4 })).kind).toBe('text');
    expect(await diffOf('a\nb\n', 'c\nd\n', { maxEditLength: 3 })).toMatchObject({ reason: 'too_large' });
  });

  it('diffs a large first version from empty without a bound', async () => {
    const diff = await diffOf(null, 'x\n'.repeat(5000), { maxEditLength: 10 });
    expect(diff.kind === 'text' ? diff.patch.split('\n+x').length - 1 : 0).toBe(5000);
  });

  it('marks a missing final newline the way unified diffs do', async () => {
    const diff = await diffOf('a\n', 'a\nb');
    expect(diff.kind === 'text' ? diff.patch : '').toContain('+b\n\\ No newline at end of file\n');
  });

  it.each([
    ['a binary new version', 'text\n', BINARY, 'binary content (5 -> 4 bytes); no text diff'],
    ['a binary previous version', BINARY, 'text\n', 'binary content (4 -> 5 bytes); no text diff'],
    ['a binary first version', null, BINARY, 'binary content (0 -> 4 bytes); no text diff'],
  ])('names %s instead of diffing it', async (_name, previous, next, message) => {
    expect(await diffOf(previous, next)).toEqual({ kind: 'binary', message });
  });

  it('reports a previous version in no run as unknown_previous', async () => {
    const projectDir = await tempProject();
    const store = await openObjectStore(projectDir, { durability: 'none' });
    const { hash } = await store.put(Buffer.from('x\n'));
    await store.close();
    const differ = openVersionDiffer(projectDir, new Map());
    const diff = await differ.diffOf({
      path: PATH,
      artifactId: 'art-000000000002',
      contentHash: hash,
      previous: 'art-00000000dead',
    });
    await differ.close();
    expect(diff).toEqual({
      kind: 'unavailable',
      reason: 'unknown_previous',
      message: `previous version art-00000000dead of ${PATH} is in no run's artifacts.jsonl; import the run that made it`,
    });
  });
});
