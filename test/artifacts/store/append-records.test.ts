import { appendFile, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { appendArtifactRecords, readArtifactRecords } from '../../../src/artifacts/store/append-records.js';
import { artifactIdOf } from '../../../src/artifacts/artifact-record.js';
import type { ArtifactRecord } from '../../../src/artifacts/artifact-record.js';
import { tempProject } from '../../helpers/temp-project.js';
import { parseNodeId, parseRunId } from '../../../src/project/index.js';
import type { RunId } from '../../../src/project/index.js';

function recordOf(runId: string, index: number): ArtifactRecord {
  const path = `workspace/src/file-${index}.ts`;
  const contentHash = `sha256:${index.toString(16).padStart(64, '0')}`;
  return {
    artifactId: artifactIdOf({ runId: parseRunId(runId), taskId: parseNodeId('build'), path, contentHash }),
    runId: parseRunId(runId),
    taskId: parseNodeId('build'),
    agentId: 'builder-01',
    type: 'file',
    path,
    contentHash,
    createdAt: '2026-02-24T10:30:00.000Z',
    metadata: {
      language: 'typescript',
      bytes: 10 + index,
      linesAdded: index,
      linesRemoved: 0,
      source: 'ingest',
    },
  };
}

const logPath = (project: string, runId: string): string =>
  join(project, '.agent', 'runs', runId, 'artifacts.jsonl');

describe('appendArtifactRecords and readArtifactRecords', () => {
  it('round-trips records in order, one line each', async () => {
    const project = await tempProject();
    const records = [0, 1, 2].map((index) => recordOf('run-001', index));
    await appendArtifactRecords(project, parseRunId('run-001'), records.slice(0, 2));
    await appendArtifactRecords(project, parseRunId('run-001'), records.slice(2));
    expect(await readArtifactRecords(project, 'run-001')).toEqual({ records, problems: [] });
    const text = await readFile(logPath(project, 'run-001'), 'utf8');
    expect(text.split('\n')).toHaveLength(4);
    expect(text.endsWith('\n')).toBe(true);
  });

  it('reads a run without artifacts.jsonl as no records', async () => {
    const project = await tempProject();
    expect(await readArtifactRecords(project, 'run-001')).toEqual({ records: [], problems: [] });
  });

  it('creates nothing for an empty append', async () => {
    const project = await tempProject();
    await appendArtifactRecords(project, parseRunId('run-001'), []);
    await expect(readFile(logPath(project, 'run-001'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('keeps every line whole under concurrent appends', async () => {
    const project = await tempProject();
    const batches = Array.from({ length: 20 }, (_, batch) =>
      Array.from({ length: 5 }, (_, offset) => recordOf('run-001', batch * 5 + offset)),
    );
    await Promise.all(batches.map((batch) => appendArtifactRecords(project, parseRunId('run-001'), batch)));
    const read = await readArtifactRecords(project, 'run-001');
    expect(read.problems).toEqual([]);
    expect(read.records).toHaveLength(100);
    expect(new Set(read.records.map((record) => record.artifactId)).size).toBe(100);
  });

  it('refuses an invalid record and writes nothing', async () => {
    const project = await tempProject();
    const bad = { ...recordOf('run-001', 1), contentHash: 'nope' };
    await expect(
      appendArtifactRecords(project, parseRunId('run-001'), [recordOf('run-001', 0), bad]),
    ).rejects.toThrow(/record 1 is invalid: contentHash/);
    expect(await readArtifactRecords(project, 'run-001')).toEqual({ records: [], problems: [] });
  });

  it('refuses a record of another run', async () => {
    const project = await tempProject();
    await expect(
      appendArtifactRecords(project, parseRunId('run-001'), [recordOf('run-002', 0)]),
    ).rejects.toThrow(/belongs to run run-002/);
  });

  it.each(['', '../../x', 'a/b', '.hidden'])('refuses the run id %j', async (runId) => {
    const project = await tempProject();
    // Deliberately not a RunId: the check inside appendArtifactRecords is what is under test.
    await expect(appendArtifactRecords(project, runId as RunId, [])).rejects.toThrow(/must match/);
    await expect(readArtifactRecords(project, runId)).rejects.toThrow(/must match/);
  });

  it('reports a truncated last line with its number and keeps the records before it', async () => {
    const project = await tempProject();
    await appendArtifactRecords(project, parseRunId('run-001'), [recordOf('run-001', 0)]);
    await appendFile(logPath(project, 'run-001'), JSON.stringify(recordOf('run-001', 1)).slice(0, 40));
    const read = await readArtifactRecords(project, 'run-001');
    expect(read.records).toEqual([recordOf('run-001', 0)]);
    expect(read.problems).toEqual([expect.objectContaining({ line: 2, code: 'truncated_line' })]);
  });

  it('reports bad lines by number and reads the good ones around them', async () => {
    const project = await tempProject();
    await appendArtifactRecords(project, parseRunId('run-001'), [recordOf('run-001', 0)]);
    await appendFile(logPath(project, 'run-001'), '{not json\n{"artifactId":"art-000000000000"}\n\n');
    await appendArtifactRecords(project, parseRunId('run-001'), [recordOf('run-001', 1)]);
    const read = await readArtifactRecords(project, 'run-001');
    expect(read.records).toEqual([recordOf('run-001', 0), recordOf('run-001', 1)]);
    expect(read.problems.map(({ line, code }) => ({ line, code }))).toEqual([
      { line: 2, code: 'invalid_json' },
      { line: 3, code: 'invalid_record' },
      // Line 4 is empty: two appenders after an interrupted write can leave one between records; it is skipped.
    ]);
  });

  it('appends after a cut-off last line on a fresh line, so every later record reads and the cut line is named', async () => {
    const project = await tempProject();
    await appendArtifactRecords(project, parseRunId('run-001'), [recordOf('run-001', 0)]);
    await appendFile(logPath(project, 'run-001'), JSON.stringify(recordOf('run-001', 1)).slice(0, 40));
    await appendArtifactRecords(project, parseRunId('run-001'), [
      recordOf('run-001', 2),
      recordOf('run-001', 3),
    ]);
    const read = await readArtifactRecords(project, 'run-001');
    expect(read.records).toEqual([recordOf('run-001', 0), recordOf('run-001', 2), recordOf('run-001', 3)]);
    expect(read.problems.map(({ line, code }) => ({ line, code }))).toEqual([
      { line: 2, code: 'invalid_json' },
    ]);
  });
});
