import { parseRunId } from '../../project/index.js';
import { appendLines, readRecordLines, renderRecordLines } from './record-lines.js';
import type { ArtifactRecord } from '../artifact-record.js';
import type { ArtifactRecordsRead } from './record-lines.js';

/** The path of a run's artifacts.jsonl relative to the project root. */
export function artifactRecordsPath(runId: string): string {
  checkRunId(runId);
  return `.agent/runs/${runId}/artifacts.jsonl`;
}

/** Validates `records` and appends them to the run's artifacts.jsonl, one line each, in a single O_APPEND write. */
export async function appendArtifactRecords(
  projectDir: string,
  runId: string,
  records: readonly ArtifactRecord[],
): Promise<void> {
  const relative = artifactRecordsPath(runId);
  const foreign = records.findIndex((record) => record.runId !== runId);
  if (foreign !== -1) {
    throw new Error(
      `artifact record ${foreign} belongs to run ${String(records[foreign]?.runId)}, not ${runId}`,
    );
  }
  await appendLines(projectDir, relative, renderRecordLines(records));
}

/** Reads and validates every line of a run's artifacts.jsonl; a missing file reads as no records. */
export async function readArtifactRecords(projectDir: string, runId: string): Promise<ArtifactRecordsRead> {
  return readRecordLines(projectDir, artifactRecordsPath(runId));
}

/** Throws for a run id that cannot name a run folder. */
export function checkRunId(runId: string): void {
  parseRunId(runId);
}
