import { artifactRecordsPath, parseRunId } from '../../project/index.js';
import type { RunId } from '../../project/index.js';
import type { RecordRoots } from './record-roots.js';
import { appendLines, readRecordLines, renderRecordLines } from './record-lines.js';
import type { ArtifactRecord } from '../artifact-record.js';
import type { ArtifactRecordsRead } from './record-lines.js';

/**
 * Validates `records` and appends them to the run's artifacts.jsonl, one line each, in a single O_APPEND write
 * (through `roots` when given: the confined roots a recorder keeps open).
 */
export async function appendArtifactRecords(
  projectDir: string,
  runId: RunId,
  records: readonly ArtifactRecord[],
  durability: 'fsync' | 'none' = 'fsync',
  roots?: RecordRoots,
): Promise<void> {
  // The id names a folder: checked again here, so no caller can append outside .agent/runs/.
  parseRunId(runId);
  const foreign = records.findIndex((record) => record.runId !== runId);
  if (foreign !== -1) {
    throw new Error(
      `artifact record ${foreign} belongs to run ${String(records[foreign]?.runId)}, not ${runId}`,
    );
  }
  await appendLines(projectDir, artifactRecordsPath(runId), renderRecordLines(records), durability, roots);
}

/** Reads and validates every line of a run's artifacts.jsonl; a missing file reads as no records. */
export async function readArtifactRecords(projectDir: string, runId: string): Promise<ArtifactRecordsRead> {
  return readRecordLines(projectDir, artifactRecordsPath(parseRunId(runId)));
}
