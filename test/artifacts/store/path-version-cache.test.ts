import { appendFile, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ArtifactRecord } from '../../../src/artifacts/artifact-record.js';
import {
  appendToIndex,
  indexFileOf,
  rebuildArtifactIndex,
} from '../../../src/artifacts/store/artifact-index.js';
import { appendArtifactRecords } from '../../../src/artifacts/store/append-records.js';
import { newestVersionLine, openPathVersionCache } from '../../../src/artifacts/store/path-version-cache.js';
import { parseRunId } from '../../../src/project/index.js';
import { tempProject } from '../../helpers/temp-project.js';
import { versionRecord } from '../../helpers/version-record.js';

const PATH = 'workspace/src/a.ts';

const recordAt = (createdAt: string, runId = 'run-001', path = PATH): ArtifactRecord =>
  versionRecord(path, createdAt, runId);

const line = (record: ArtifactRecord): string => `${JSON.stringify(record)}\n`;

describe('newestVersionLine', () => {
  const tagged = (time: string, agentId: string): string =>
    JSON.stringify({ ...recordAt(`2026-03-01T${time}.000Z`), agentId });

  it.each([
    ['the newest time wins over line order', [tagged('10:00:02', 'a'), tagged('10:00:01', 'b')], 'a'],
    ['of equal times the later line wins', [tagged('10:00:01', 'a'), tagged('10:00:01', 'b')], 'b'],
  ])('%s', (_, lines, expected) => {
    expect((newestVersionLine(lines, PATH)?.value as ArtifactRecord).agentId).toBe(expected);
  });

  it('skips lines that are not JSON or are versions of another path', () => {
    const other = JSON.stringify(recordAt('2026-03-01T11:00:00.000Z', 'run-001', 'workspace/b.ts'));
    const newest = newestVersionLine(
      ['{oops', other, JSON.stringify(recordAt('2026-03-01T10:00:00.000Z'))],
      PATH,
    );
    expect((newest?.value as ArtifactRecord).createdAt).toBe('2026-03-01T10:00:00.000Z');
  });
});

describe('openPathVersionCache', () => {
  it('answers undefined for a path without an index file', async () => {
    const project = await tempProject();
    expect(await openPathVersionCache(project).latest(PATH)).toBeUndefined();
  });

  it('sees what another writer appended after the first read, reading only the new bytes', async () => {
    const project = await tempProject();
    const cache = openPathVersionCache(project);
    await appendToIndex(project, [recordAt('2026-03-01T10:00:00.000Z')], 'none');
    expect((await cache.latest(PATH))?.createdAt).toBe('2026-03-01T10:00:00.000Z');
    await appendToIndex(project, [recordAt('2026-03-01T10:00:05.000Z', 'run-002')], 'none');
    expect((await cache.latest(PATH))?.runId).toBe('run-002');
  });

  it('believes what it was told was appended only when the file grew by exactly that', async () => {
    const project = await tempProject();
    const cache = openPathVersionCache(project);
    const first = recordAt('2026-03-01T10:00:00.000Z');
    await appendToIndex(project, [first], 'none');
    await cache.latest(PATH);
    const mine = recordAt('2026-03-01T10:00:05.000Z', 'run-002');
    const theirs = recordAt('2026-03-01T10:00:09.000Z', 'run-003');
    // Another process appends too: the cache must read the tail instead of trusting its own note.
    await appendToIndex(project, [mine, theirs], 'none');
    cache.appended(PATH, Buffer.byteLength(line(mine)), { value: mine, time: Date.parse(mine.createdAt) });
    expect((await cache.latest(PATH))?.runId).toBe('run-003');
    const alone = recordAt('2026-03-01T10:00:20.000Z', 'run-004');
    await appendToIndex(project, [alone], 'none');
    cache.appended(PATH, Buffer.byteLength(line(alone)), { value: alone, time: Date.parse(alone.createdAt) });
    expect((await cache.latest(PATH))?.runId).toBe('run-004');
  });

  it('reads the whole file again once reindex replaced it', async () => {
    const project = await tempProject();
    const cache = openPathVersionCache(project);
    const older = recordAt('2026-03-01T10:00:00.000Z');
    await appendArtifactRecords(project, parseRunId('run-001'), [older], 'none');
    // The index holds a version no run has: reindex drops it, and the cache must not keep answering it.
    await appendToIndex(project, [older, recordAt('2026-03-01T10:00:05.000Z', 'run-009')], 'none');
    expect((await cache.latest(PATH))?.runId).toBe('run-009');
    await rebuildArtifactIndex(project);
    expect((await cache.latest(PATH))?.createdAt).toBe(older.createdAt);
  });

  it('reads a line cut off mid-write only once its newline is there', async () => {
    const project = await tempProject();
    const cache = openPathVersionCache(project);
    await appendToIndex(project, [recordAt('2026-03-01T10:00:00.000Z')], 'none');
    const file = join(project, indexFileOf(PATH));
    const next = line(recordAt('2026-03-01T10:00:05.000Z', 'run-002'));
    await appendFile(file, next.slice(0, 40));
    expect((await cache.latest(PATH))?.runId).toBe('run-001');
    await appendFile(file, next.slice(40));
    expect((await cache.latest(PATH))?.runId).toBe('run-002');
  });

  it('falls back to the validated reading when the newest line is not a valid record', async () => {
    const project = await tempProject();
    const cache = openPathVersionCache(project);
    await appendToIndex(project, [recordAt('2026-03-01T10:00:00.000Z')], 'none');
    const file = join(project, indexFileOf(PATH));
    await writeFile(
      file,
      `${await readFile(file, 'utf8')}${JSON.stringify({ path: PATH, createdAt: '2026-03-01T11:00:00.000Z' })}\n`,
    );
    expect((await cache.latest(PATH))?.createdAt).toBe('2026-03-01T10:00:00.000Z');
  });
});
