import { artifactRecordsPath, parseRunId } from '../../project/index.js';
import type { RunId } from '../../project/index.js';
import { usingProject } from '../../store/index.js';
import type { ProjectRef } from '../../store/index.js';
import { appendLines, readRecordLines, renderRecordLines } from './record-lines.js';
import type { ArtifactRecord } from '../artifact-record.js';
import type { ArtifactRecordsRead } from './record-lines.js';

/** Validates `records` and appends them to the run's artifacts.jsonl, one line each, in one append to the store. */
export async function appendArtifactRecords(
  project: ProjectRef,
  runId: RunId,
  records: readonly ArtifactRecord[],
  durability: 'fsync' | 'none' = 'fsync',
): Promise<void> {
  // The id names a folder: checked again here, so no caller can append outside .agent/runs/.
  parseRunId(runId);
  const foreign = records.findIndex((record) => record.runId !== runId);
  if (foreign !== -1) {
    throw new Error(
      `artifact record ${foreign} belongs to run ${String(records[foreign]?.runId)}, not ${runId}`,
    );
  }
  const text = renderRecordLines(records);
  await usingProject(project, ({ store }) =>
    appendLines(store, artifactRecordsPath(runId), text, durability),
  );
}

/** Reads and validates every line of a run's artifacts.jsonl; a missing file reads as no records. */
export async function readArtifactRecords(project: ProjectRef, runId: string): Promise<ArtifactRecordsRead> {
  return readRecordLines(project, artifactRecordsPath(parseRunId(runId)));
}
