import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ArtifactRecord } from '../../../src/artifacts/artifact-record.js';
import { openArtifactRecorder } from '../../../src/artifacts/record/record-artifacts.js';
import type { ArtifactVersionInput } from '../../../src/artifacts/record/record-artifacts.js';
import {
  latestPathVersion,
  listIndexFiles,
  readArtifactRecords,
  readHistoryCut,
  readHistoryMeta,
  readPathVersions,
  readProjectRecords,
  readRunStarts,
  readWholeHistory,
  rebuildArtifactIndex,
} from '../../../src/artifacts/store/index.js';
import { readHistorySegments } from '../../../src/artifacts/store/history-journal.js';
import { listRecordedRuns } from '../../../src/store/index.js';
import { newestIndexedRun } from '../../../src/artifacts/store/run-order-index.js';
import { parseNodeId, parseRunId, PATH_INDEX_DIR, RUN_ORDER_INDEX_PATH } from '../../../src/project/index.js';
import { createMemoryStore, openProject } from '../../../src/store/index.js';
import type { Project, ProjectStore } from '../../../src/store/index.js';
import { tempProject } from '../../helpers/temp-project.js';

// The recorder and every reader of records and indexes on a Project whose store is in memory (spec storage.md,
// Part 1): they see what was recorded, the store keeps exactly the files the files store writes, and nothing is
// written under the project folder's .agent/.

const text = (value: string): Uint8Array => new TextEncoder().encode(value);

/** A clock one second per call from 2026-03-01T10:00:00Z, the same for every store it is given to. */
function clock(): () => Date {
  let tick = 0;
  return () => new Date(Date.parse('2026-03-01T10:00:00.000Z') + 1000 * tick++);
}

/** Node `step` of `runId` writing `files` workspace files (of a pool of 12 paths) and its document. */
function stepOf(runId: string, step: number, files: number): ArtifactVersionInput[] {
  const place = { runId: parseRunId(runId), taskId: parseNodeId(`n${String(step)}`), agentId: 'builder' };
  return [
    {
      ...place,
      kind: 'message',
      path: `docs/n${String(step)}.md`,
      bytes: text(`# step ${String(step)}\n`),
      source: 'runtime',
    },
    ...Array.from({ length: files }, (_, file): ArtifactVersionInput => {
      const slot = (step * files + file) % 12;
      return {
        ...place,
        kind: 'file',
        path: `workspace/src/file${String(slot)}.ts`,
        bytes: text(`export const v = ${JSON.stringify(`${runId} ${String(step)} ${String(file)}`)};\n`),
        source: 'ingest',
      };
    }),
  ];
}

/** Records `steps` steps of `files` files for each run, with a trace after each, through one recorder. */
async function recordRuns(
  project: string | Project,
  runs: readonly string[],
  steps: number,
  files = 6,
): Promise<void> {
  const now = clock();
  const recorder = await openArtifactRecorder(project, { now, durability: 'none' });
  try {
    for (const runId of runs) {
      for (let step = 0; step < steps; step++) {
        await recorder.recordVersions(stepOf(runId, step, files));
        await recorder.recordTrace({
          runId: parseRunId(runId),
          taskId: parseNodeId(`n${String(step)}`),
          agentId: 'builder',
          trace: {
            version: 1,
            runId: parseRunId(runId),
            nodeId: parseNodeId(`n${String(step)}`),
            agent: 'builder',
            graph: { name: 'memory', hash: 'a'.repeat(64) },
            promptSha256: 'd'.repeat(64),
            attempt: 1,
            startedAt: '2026-03-01T10:00:00.000Z',
            finishedAt: '2026-03-01T10:00:01.000Z',
            durationMs: 1000,
            outcome: 'completed',
          },
        });
      }
    }
  } finally {
    await recorder.close();
  }
}

/** Every file of a store below `folder`, key to base64 bytes. */
async function storedFiles(store: ProjectStore, folder = '.agent'): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const entry of await store.list(folder)) {
    const key = `${folder}/${entry.name}`;
    if (entry.kind === 'folder')
      for (const [below, bytes] of await storedFiles(store, key)) files.set(below, bytes);
    else files.set(key, Buffer.from((await store.read(key)) ?? new Uint8Array()).toString('base64'));
  }
  return files;
}

describe('openArtifactRecorder on a Project with a memory store', () => {
  it('records versions and messages that every reader given the same Project sees, with nothing under .agent/', async () => {
    const dir = await tempProject();
    const project = openProject(dir, { store: createMemoryStore() });
    await recordRuns(project, ['run-001', 'run-002'], 2);

    const run1 = await readArtifactRecords(project, 'run-001');
    expect(run1.problems).toEqual([]);
    expect(run1.records.map((record) => record.type)).toEqual([
      'message',
      ...Array<string>(6).fill('file'),
      'trace',
      'message',
      ...Array<string>(6).fill('file'),
      'trace',
    ]);
    const versions = await readPathVersions(project, 'workspace/src/file0.ts');
    expect(versions.problems).toEqual([]);
    expect(versions.records.map((record) => record.runId)).toEqual(['run-001', 'run-002']);
    // The second run's version links to the first: the recorder's cache read the index through the store.
    const [first, second] = versions.records as [ArtifactRecord, ArtifactRecord];
    expect(second.metadata.previous).toBe(first.artifactId);
    expect(await latestPathVersion(project, 'workspace/src/file0.ts')).toEqual(second);
    expect((await readPathVersions(project, 'docs/n1.md')).records).toHaveLength(2);

    const all = await readProjectRecords(project);
    expect(all.runs).toEqual(['run-001', 'run-002']);
    expect(all.byRun.get(parseRunId('run-002'))).toHaveLength(16);
    expect(await listRecordedRuns(project)).toEqual(['run-001', 'run-002']);

    const workspaceVersions = [...all.byRun.values()].flat().filter((record) => record.type === 'file');
    expect(await readHistoryMeta(project)).toEqual({ version: 1, complete: true });
    expect(await readWholeHistory(project)).toEqual({ records: workspaceVersions, problems: [] });
    expect(await readHistoryCut(project, { headsBefore: 0, until: Date.parse('2027-01-01') })).toEqual(
      workspaceVersions,
    );
    expect(await newestIndexedRun(project)).toBe('run-002');
    expect([...(await readRunStarts(project)).starts.keys()]).toEqual(['run-001', 'run-002']);
    const objects = await project.store.openObjects();
    expect(Buffer.from(await objects.get(first.contentHash)).toString()).toContain('run-001 0 0');

    expect(existsSync(path.join(dir, '.agent'))).toBe(false);
    expect(await readdir(dir)).toEqual([]);
  });

  it('keeps exactly the files the files store writes, byte for byte, a rolled history journal included', async () => {
    const dir = await tempProject();
    const memory = openProject(dir, { store: createMemoryStore() });
    const files = await tempProject();
    // 48 steps of 8 files: about 150 KB of journal, so segment 0 is rolled (heads, segments.jsonl).
    const runs = ['run-001', 'run-002', 'run-003', 'run-004'];
    await recordRuns(memory, runs, 12, 8);
    await recordRuns(files, runs, 12, 8);
    expect((await readHistorySegments(memory)).segments.length).toBeGreaterThanOrEqual(1);
    const filesStore = openProject(files).store;
    try {
      const inMemory = await storedFiles(memory.store);
      expect(inMemory.size).toBeGreaterThan(100);
      expect(await storedFiles(filesStore)).toEqual(inMemory);
    } finally {
      await filesStore.close();
    }
    expect(existsSync(path.join(dir, '.agent'))).toBe(false);
  });

  it('rebuilds in the memory store exactly the indexes that recording built, and removes a stale one', async () => {
    const project = openProject(await tempProject(), { store: createMemoryStore() });
    await recordRuns(project, ['run-001', 'run-002', 'run-003'], 8);
    const paths = await storedFiles(project.store, PATH_INDEX_DIR);
    const runOrder = await project.store.readText(RUN_ORDER_INDEX_PATH);
    const history = await readWholeHistory(project);
    const indexFiles = await listIndexFiles(project);
    expect(indexFiles).toHaveLength(12 + 8);
    const stale = `${PATH_INDEX_DIR}/00/${'0'.repeat(62)}.jsonl`;
    await project.store.replace(stale, 'stale\n');
    expect(await rebuildArtifactIndex(project)).toEqual({
      runs: 3,
      records: 168,
      paths: 20,
      historySegments: 1,
      problems: [],
    });
    expect(await project.store.read(stale)).toBeUndefined();
    expect(await storedFiles(project.store, PATH_INDEX_DIR)).toEqual(paths);
    expect(await project.store.readText(RUN_ORDER_INDEX_PATH)).toBe(runOrder);
    expect(await readWholeHistory(project)).toEqual(history);
    expect(await listIndexFiles(project)).toEqual(indexFiles);
  });
});
