import { createHash } from 'node:crypto';
import { appendFile, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openArtifactRecorder } from '../../../src/artifacts/index.js';
import type { ArtifactRecord } from '../../../src/artifacts/index.js';
import { verifyArtifacts } from '../../../src/artifacts/lineage/verify-artifacts.js';
import {
  HISTORY_META_PATH,
  historySegmentPath,
  readHistoryMeta,
  readHistorySegments,
  supersedes,
} from '../../../src/artifacts/store/history-journal.js';
import { appendArtifactRecords, newestIndexedRun } from '../../../src/artifacts/store/index.js';
import { parseNodeId, parseRunId, RUN_ORDER_INDEX_PATH } from '../../../src/project/index.js';
import { recordInterleavedRuns } from '../../helpers/history-project.js';
import { tempProject } from '../../helpers/temp-project.js';

function versionOf(runId: string, createdAt: string): ArtifactRecord {
  return {
    artifactId: `art-${createHash('sha256')
      .update(runId + createdAt)
      .digest('hex')
      .slice(0, 12)}`,
    runId: parseRunId(runId),
    taskId: parseNodeId('n1'),
    agentId: 'builder',
    type: 'file',
    path: 'workspace/a.ts',
    contentHash: `sha256:${'e'.repeat(64)}`,
    createdAt,
    metadata: { bytes: 1, linesAdded: 1, linesRemoved: 0, source: 'ingest' },
  };
}

describe('the history journal', () => {
  it('is marked complete when the recorder starts it in a project without records', async () => {
    const project = await tempProject();
    await recordInterleavedRuns(project, { runs: 2, steps: 1, files: 3, pool: 10 });
    expect(await readHistoryMeta(project)).toEqual({ version: 1, complete: true });
  });

  it('is marked not complete when started in a project that already had records', async () => {
    const project = await tempProject();
    await appendArtifactRecords(project, parseRunId('run-old'), [
      versionOf('run-old', '2026-01-01T00:00:00.000Z'),
    ]);
    const recorder = await openArtifactRecorder(project, { durability: 'none' });
    await recorder.recordVersions([
      {
        runId: parseRunId('run-new'),
        taskId: parseNodeId('n1'),
        agentId: 'builder',
        kind: 'file',
        path: 'workspace/b.ts',
        bytes: new TextEncoder().encode('b\n'),
        source: 'ingest',
      },
    ]);
    await recorder.close();
    expect(await readHistoryMeta(project)).toMatchObject({ complete: false });
    const verify = await verifyArtifacts(project);
    expect(verify.problems).toContainEqual(
      expect.objectContaining({ code: 'index_stale', severity: 'warning' }),
    );
  });

  it('marks itself not complete when a segment with a torn line is rolled, instead of writing wrong heads', async () => {
    const project = await tempProject();
    await recordInterleavedRuns(project, { runs: 2, steps: 2, files: 5, pool: 10 });
    // A recorder killed mid-append leaves half a line; the next appender starts on a fresh line.
    await appendFile(path.join(project, historySegmentPath(0)), '{"artifactId":"art-');
    await recordInterleavedRuns(project, {
      runs: 4,
      steps: 12,
      files: 12,
      pool: 40,
      prefix: 'more',
      startAt: '2026-06-01T00:00:00.000Z',
    });
    expect((await readHistorySegments(project)).segments).toEqual([]);
    expect(await readHistoryMeta(project)).toMatchObject({ complete: false });
    expect(await readFile(path.join(project, HISTORY_META_PATH), 'utf8')).toContain('is not JSON');
  });

  it('lists each run once in runs.jsonl, at its first record, and finds the newest', async () => {
    const project = await tempProject();
    const runs = await recordInterleavedRuns(project, { runs: 3, steps: 2, files: 2, pool: 10 });
    const lines = (await readFile(path.join(project, RUN_ORDER_INDEX_PATH), 'utf8')).trim().split('\n');
    expect(lines.map((line) => (JSON.parse(line) as { runId: string }).runId)).toEqual(runs);
    expect(await newestIndexedRun(project)).toBe(runs.at(-1));
  });

  it('orders versions of equal time by run id, then by line', () => {
    const a = versionOf('run-a', '2026-01-01T00:00:00.000Z');
    const b = versionOf('run-b', '2026-01-01T00:00:00.000Z');
    const later = versionOf('run-a', '2026-01-01T00:00:00.001Z');
    expect(supersedes(b, a)).toBe(true);
    expect(supersedes(a, b)).toBe(false);
    expect(supersedes(a, a)).toBe(true);
    expect(supersedes(later, b)).toBe(true);
  });
});
