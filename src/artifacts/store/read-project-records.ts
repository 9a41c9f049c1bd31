import type { ArtifactRecord } from '../artifact-record.js';
import { artifactRecordsPath } from '../../project/index.js';
import type { RunId } from '../../project/index.js';
import { isVersionRecord } from './artifact-index.js';
import { listRecordedRuns } from './list-recorded-runs.js';
import { readRecordLines } from './record-lines.js';
import type { RecordLineProblem } from './record-lines.js';

/** Every run's records of a project, read from the runs' artifacts.jsonl (the source of truth). */
export interface ProjectRecords {
  /** Run ids with a run folder, sorted. */
  readonly runs: readonly RunId[];
  /** Each run's valid records in file order (runs without records map to an empty list). */
  readonly byRun: ReadonlyMap<RunId, readonly ArtifactRecord[]>;
  /** Unreadable lines of any run's artifacts.jsonl. */
  readonly problems: readonly RecordLineProblem[];
}

const READ_CONCURRENCY = 16;

/** Reads the records of every run of the project (records only: no object is read). */
export async function readProjectRecords(projectDir: string): Promise<ProjectRecords> {
  const runs = await listRecordedRuns(projectDir);
  const byRun = new Map<RunId, readonly ArtifactRecord[]>();
  const problems: RecordLineProblem[][] = runs.map(() => []);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < runs.length) {
      const index = next++;
      const runId = runs[index] as RunId;
      const read = await readRecordLines(projectDir, artifactRecordsPath(runId));
      byRun.set(runId, read.records);
      problems[index] = [...read.problems];
    }
  };
  await Promise.all(Array.from({ length: Math.min(READ_CONCURRENCY, runs.length) }, worker));
  return {
    runs,
    byRun: new Map(runs.map((runId) => [runId, byRun.get(runId) ?? []])),
    problems: problems.flat(),
  };
}

/**
 * Every version record of the project by artifact id, the first one read of each (an id names one content at one
 * place, so any record of it will do): where a version's `previous` is found, in whichever run made it.
 */
export async function readVersionsById(projectDir: string): Promise<Map<string, ArtifactRecord>> {
  const { byRun } = await readProjectRecords(projectDir);
  const versions = new Map<string, ArtifactRecord>();
  for (const records of byRun.values())
    for (const record of records)
      if (isVersionRecord(record) && !versions.has(record.artifactId))
        versions.set(record.artifactId, record);
  return versions;
}
