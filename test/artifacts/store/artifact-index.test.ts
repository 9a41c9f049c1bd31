import { appendFile, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  appendToIndex,
  indexFileOf,
  latestPathVersion,
  listIndexFiles,
  readPathVersions,
  rebuildArtifactIndex,
} from '../../../src/artifacts/store/artifact-index.js';
import { openArtifactRecorder } from '../../../src/artifacts/record/record-artifacts.js';
import { PATH_INDEX_DIR } from '../../../src/project/index.js';
import { versionRecord } from '../../helpers/version-record.js';
import { tempProject } from '../../helpers/temp-project.js';
import { parseNodeId, parseRunId } from '../../../src/project/index.js';

const text = (value: string): Uint8Array => new TextEncoder().encode(value);

const recordOf = versionRecord;

/** Records versions of a few paths across three runs, one recorder call per run, one second apart. */
async function recordThreeRuns(project: string): Promise<void> {
  let tick = 0;
  const recorder = await openArtifactRecorder(project, {
    now: () => new Date(Date.parse('2026-03-01T10:00:00.000Z') + 1000 * tick++),
    durability: 'none',
  });
  for (const [runId, suffix] of [
    ['run-001', 'one'],
    ['run-002', 'two'],
    ['run-003', 'three'],
  ] as const) {
    await recorder.recordVersions(
      ['workspace/src/a.ts', 'workspace/src/b.ts', 'docs/plan.md'].map((path) => ({
        runId: parseRunId(runId),
        taskId: parseNodeId('build'),
        agentId: 'builder-01',
        kind: path.startsWith('docs/') ? ('message' as const) : ('file' as const),
        path,
        bytes: text(`${path} ${suffix}\n`),
        source: 'ingest' as const,
      })),
    );
  }
  await recorder.close();
}

async function snapshotIndex(project: string): Promise<Record<string, string>> {
  const snapshot: Record<string, string> = {};
  for (const file of await listIndexFiles(project))
    snapshot[file] = await readFile(join(project, file), 'utf8');
  return snapshot;
}

describe('the path index', () => {
  it('keeps one index file per path, named by the sha256 of the path', async () => {
    const project = await tempProject();
    const a = recordOf('workspace/src/a.ts', '2026-03-01T10:00:00.000Z');
    const b = recordOf('workspace/src/b.ts', '2026-03-01T10:00:01.000Z');
    await appendToIndex(project, [a, b]);
    expect(indexFileOf('workspace/src/a.ts')).toMatch(
      /^\.agent\/index\/paths\/[0-9a-f]{2}\/[0-9a-f]{62}\.jsonl$/,
    );
    expect(await listIndexFiles(project)).toEqual(
      [indexFileOf('workspace/src/a.ts'), indexFileOf('workspace/src/b.ts')].sort(),
    );
    expect(await readFile(join(project, indexFileOf(a.path)), 'utf8')).toBe(`${JSON.stringify(a)}\n`);
  });

  it('reads the versions of a path oldest first, whatever order they were appended in', async () => {
    const project = await tempProject();
    const late = recordOf('workspace/src/a.ts', '2026-03-01T10:00:05.000Z', 'run-002');
    const early = recordOf('workspace/src/a.ts', '2026-03-01T10:00:01.000Z', 'run-001');
    await appendToIndex(project, [late]);
    await appendToIndex(project, [early]);
    expect((await readPathVersions(project, 'workspace/src/a.ts')).records).toEqual([early, late]);
    expect(await latestPathVersion(project, 'workspace/src/a.ts')).toEqual(late);
  });

  it('leaves trace records out of the index', async () => {
    const project = await tempProject();
    const trace = {
      ...recordOf('.agent/runs/run-001/traces/build.json', '2026-03-01T10:00:00.000Z'),
      type: 'trace' as const,
    };
    await appendToIndex(project, [trace]);
    expect(await listIndexFiles(project)).toEqual([]);
  });

  it('reads a path without versions as no records', async () => {
    const project = await tempProject();
    expect(await readPathVersions(project, 'workspace/none.ts')).toEqual({ records: [], problems: [] });
    expect(await latestPathVersion(project, 'workspace/none.ts')).toBeUndefined();
  });

  it('reports a truncated line of an index file and reads the lines before it', async () => {
    const project = await tempProject();
    const a = recordOf('workspace/src/a.ts', '2026-03-01T10:00:00.000Z');
    await appendToIndex(project, [a]);
    await appendFile(join(project, indexFileOf(a.path)), '{"artifactId":"art-');
    const read = await readPathVersions(project, a.path);
    expect(read.records).toEqual([a]);
    expect(read.problems).toEqual([
      expect.objectContaining({ file: indexFileOf(a.path), line: 2, code: 'truncated_line' }),
    ]);
  });
});

describe('rebuildArtifactIndex', () => {
  it('rebuilds exactly the index that recording built incrementally', async () => {
    const project = await tempProject();
    await recordThreeRuns(project);
    const incremental = await snapshotIndex(project);
    expect(Object.keys(incremental)).toHaveLength(3);
    const rebuilt = await rebuildArtifactIndex(project);
    expect(rebuilt).toEqual({ runs: 3, records: 9, paths: 3, historySegments: 1, problems: [] });
    expect(await snapshotIndex(project)).toEqual(incremental);
  });

  it('never leaves a path without its index file while rebuilding (one rename per file)', async () => {
    const project = await tempProject();
    await recordThreeRuns(project);
    const state = { reading: true };
    let reads = 0;
    let empty = 0;
    const reader = (async () => {
      while (state.reading) {
        reads += 1;
        if ((await latestPathVersion(project, 'workspace/src/a.ts')) === undefined) empty += 1;
      }
    })();
    for (let round = 0; round < 20; round++) await rebuildArtifactIndex(project);
    state.reading = false;
    await reader;
    expect(reads).toBeGreaterThan(0);
    expect(empty).toBe(0);
  });

  it('rebuilds a deleted index', async () => {
    const project = await tempProject();
    await recordThreeRuns(project);
    const incremental = await snapshotIndex(project);
    await rm(join(project, PATH_INDEX_DIR), { recursive: true });
    await rebuildArtifactIndex(project);
    expect(await snapshotIndex(project)).toEqual(incremental);
  });

  it('replaces the old index whole: stale files go, and no staging folder is left behind', async () => {
    const project = await tempProject();
    await recordThreeRuns(project);
    const incremental = await snapshotIndex(project);
    const stale = recordOf('workspace/deleted-run.ts', '2026-03-01T09:00:00.000Z', 'run-000');
    await appendToIndex(project, [stale]);
    await rebuildArtifactIndex(project);
    expect(await snapshotIndex(project)).toEqual(incremental);
    expect((await readdir(join(project, '.agent/index'))).sort()).toEqual(['history', 'paths', 'runs.jsonl']);
  });

  it('leaves the old index untouched when reading the runs fails', async () => {
    const project = await tempProject();
    await recordThreeRuns(project);
    const before = await snapshotIndex(project);
    const entries = (await readdir(join(project, '.agent/index'))).sort();
    // A folder where a run's artifacts.jsonl belongs makes the read fail before anything is written.
    await mkdir(join(project, '.agent/runs/run-004/artifacts.jsonl'), { recursive: true });
    await expect(rebuildArtifactIndex(project)).rejects.toMatchObject({ code: 'EISDIR' });
    expect(await snapshotIndex(project)).toEqual(before);
    expect((await readdir(join(project, '.agent/index'))).sort()).toEqual(entries);
  });

  it('reports unreadable lines of a run and indexes the readable ones', async () => {
    const project = await tempProject();
    await recordThreeRuns(project);
    const runFile = '.agent/runs/run-002/artifacts.jsonl';
    await appendFile(join(project, runFile), 'not json\n{"artifactId":"art-0');
    const rebuilt = await rebuildArtifactIndex(project);
    expect(rebuilt.records).toBe(9);
    expect(rebuilt.problems).toEqual([
      expect.objectContaining({ file: runFile, line: 4, code: 'invalid_json' }),
      expect.objectContaining({ file: runFile, line: 5, code: 'truncated_line' }),
    ]);
  });

  it('builds an empty index for a project without runs', async () => {
    const project = await tempProject();
    expect(await rebuildArtifactIndex(project)).toEqual({
      runs: 0,
      records: 0,
      paths: 0,
      historySegments: 1,
      problems: [],
    });
    expect(await listIndexFiles(project)).toEqual([]);
  });

  it('ignores files in the index folder that are not index files', async () => {
    const project = await tempProject();
    await recordThreeRuns(project);
    const expected = await listIndexFiles(project);
    await writeFile(join(project, PATH_INDEX_DIR, 'README'), 'not an index file\n');
    await mkdir(join(project, PATH_INDEX_DIR, 'zz'), { recursive: true });
    expect(await listIndexFiles(project)).toEqual(expected);
  });
});
