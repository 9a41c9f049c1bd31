// Issue 23, "one document takes the process down": a 1 MiB document of one valid block and 58,250 near-miss
// openers made a 20 MB manifest and 58,253 event lines. Past max_blocks the candidates are counted, not listed.
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_INGEST_LIMITS } from '../../src/config/index.js';
import { parseFences } from '../../src/fence/index.js';
import { ingestManifestSchema, runIngest } from '../../src/ingest/index.js';
import { parseNodeId, parseRunId } from '../../src/project/index.js';
import { HOSTILE_SHAPES, hostileCandidates, hostileDocument } from '../helpers/hostile-documents.js';
import { readEvents, tempProject } from '../helpers/temp-project.js';

const base = { runId: parseRunId('run-1'), nodeId: parseNodeId('plan'), docPath: 'docs/plan.md' } as const;
const MIB = 1024 * 1024;
const MAX_BLOCKS = DEFAULT_INGEST_LIMITS.maxBlocks;

/** What each candidate past max_blocks would have been told alone, from a parse that keeps every block. */
function expectedOmitted(doc: string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const block of parseFences(doc).blocks.slice(MAX_BLOCKS)) {
    const code = block.verdict.valid ? 'too_many_blocks' : block.verdict.code;
    counts[code] = (counts[code] ?? 0) + 1;
  }
  return counts;
}

describe('ingestDocument of a document with more candidates than max_blocks', () => {
  const nearMiss = HOSTILE_SHAPES[0];
  if (nearMiss === undefined) throw new Error('no near-miss shape');

  it('lists max_blocks entries and one too_many_blocks entry counting the rest by reason', async () => {
    const doc = hostileDocument(nearMiss, MIB);
    const candidates = hostileCandidates(nearMiss, doc);
    expect(candidates).toBe(58_251);
    const projectDir = await tempProject({ 'docs/plan.md': doc });

    const result = await runIngest({ projectDir, ...base, durability: 'none' });

    const { manifest } = result;
    expect(result.problems).toEqual([]);
    expect(manifest.artifacts).toHaveLength(MAX_BLOCKS + 1);
    expect(manifest.summary).toEqual({
      total_blocks: candidates,
      written: 1,
      skipped: candidates - 1,
      rejected: 0,
    });
    const omitted = candidates - MAX_BLOCKS;
    const byReason = expectedOmitted(doc);
    expect(byReason).toEqual({ quoted_path: 28_876, unsupported_key: 28_875 });
    expect(manifest.artifacts.at(-1)).toEqual({
      index: MAX_BLOCKS,
      lang: '',
      declared_file: '',
      workspace_path: '',
      bytes: 0,
      sha256: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
      status: 'skipped',
      reason: `too_many_blocks: ${String(omitted)} more candidate blocks were not ingested after the first ${String(MAX_BLOCKS)} (max_blocks); by reason: quoted_path 28876, unsupported_key 28875. Split the document or raise ingest.limits.max_blocks`,
    });
    expect(result.blocks.at(-1)?.omitted).toEqual({ count: omitted, byReason });
    expect(manifest.artifacts.slice(0, -1).map((entry) => entry.index)).toEqual(
      Array.from({ length: MAX_BLOCKS }, (_, index) => index),
    );

    // On disk: schema-valid, and about 500 entries' worth (it was 20 MB).
    const manifestFile = path.join(projectDir, result.manifestPath ?? '');
    expect(ingestManifestSchema.safeParse(JSON.parse(await readFile(manifestFile, 'utf8'))).success).toBe(
      true,
    );
    expect((await stat(manifestFile)).size).toBeLessThan(200 * 1024);

    // One event per manifest entry: the rest of the candidates are one line with the counts.
    const events = await readEvents(projectDir, 'run-1');
    const blockEvents = events.filter((event) => event.event === 'ingest.block');
    expect(blockEvents).toHaveLength(MAX_BLOCKS + 1);
    expect(blockEvents.at(-1)).toMatchObject({
      level: 'WARNING',
      index: MAX_BLOCKS,
      status: 'skipped',
      omitted,
      omitted_by_reason: byReason,
    });
    expect(events.map((event) => event.event).filter((name) => name !== 'ingest.block')).toEqual([
      'ingest.started',
      'ingest.summary',
    ]);
    expect(events.at(-1)).toMatchObject({ total_blocks: candidates, written: 1, skipped: candidates - 1 });
  }, 60_000);

  it.each(HOSTILE_SHAPES.map((shape) => [shape.name, shape] as const))(
    'keeps %s to max_blocks + 1 entries, the counts adding up to every candidate',
    async (_name, shape) => {
      const doc = hostileDocument(shape, MIB / 4);
      const candidates = hostileCandidates(shape, doc);
      const projectDir = await tempProject({ 'docs/plan.md': doc });
      const { manifest, blocks } = await runIngest({ projectDir, ...base, durability: 'none' });
      expect(manifest.artifacts).toHaveLength(MAX_BLOCKS + 1);
      expect(manifest.summary.total_blocks).toBe(candidates);
      expect(blocks.at(-1)?.omitted).toEqual({
        count: candidates - MAX_BLOCKS,
        byReason: expectedOmitted(doc),
      });
      expect(ingestManifestSchema.safeParse(manifest).success).toBe(true);
    },
    60_000,
  );

  it('with one candidate past the limit, still gives it the summary entry', async () => {
    const doc = '```ts file=a.ts\na\n```\n```ts file=b.ts\nb\n```\n```ts path=c\n```\n';
    const projectDir = await tempProject({ 'docs/plan.md': doc });
    const { manifest } = await runIngest({ projectDir, ...base, limits: { maxBlocks: 2 } });
    expect(manifest.artifacts.map((entry) => entry.reason.split(':')[0] || entry.status)).toEqual([
      'written',
      'written',
      'too_many_blocks',
    ]);
    expect(manifest.artifacts[2]?.reason).toContain('by reason: unsupported_key 1.');
    expect(manifest.summary).toEqual({ total_blocks: 3, written: 2, skipped: 1, rejected: 0 });
  });
});
