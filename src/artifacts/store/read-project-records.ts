import type { ArtifactRecord } from '../artifact-record.js';
import { artifactRecordsPath } from '../../project/index.js';
import type { RunId } from '../../project/index.js';
import { usingProject } from '../../store/index.js';
import type { ProjectRef } from '../../store/index.js';
import { isVersionRecord, readPathVersionsById } from './artifact-index.js';
import { listRecordedRuns } from '../../store/index.js';
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
export async function readProjectRecords(project: ProjectRef): Promise<ProjectRecords> {
  return usingProject(project, readRecordsOf);
}

async function readRecordsOf(project: ProjectRef): Promise<ProjectRecords> {
  const runs = await listRecordedRuns(project);
  const byRun = new Map<RunId, readonly ArtifactRecord[]>();
  const problems: RecordLineProblem[][] = runs.map(() => []);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < runs.length) {
      const index = next++;
      const runId = runs[index] as RunId;
      const read = await readRecordLines(project, artifactRecordsPath(runId));
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
export async function readVersionsById(project: ProjectRef): Promise<Map<string, ArtifactRecord>> {
  const { byRun } = await readProjectRecords(project);
  const versions = new Map<string, ArtifactRecord>();
  for (const records of byRun.values())
    for (const record of records)
      if (isVersionRecord(record) && !versions.has(record.artifactId))
        versions.set(record.artifactId, record);
  return versions;
}

/**
 * The version records `records` link to, by artifact id: the version records among them and each one's previous
 * version, found in its path's index file (a previous version is always a version of the same path), so the cost
 * is the paths these records touch, not the project's history. A previous version the index lacks is absent.
 */
export async function readLinkedVersions(
  project: ProjectRef,
  records: readonly ArtifactRecord[],
): Promise<Map<string, ArtifactRecord>> {
  const versions = new Map<string, ArtifactRecord>();
  for (const record of records)
    if (isVersionRecord(record) && !versions.has(record.artifactId)) versions.set(record.artifactId, record);
  const wanted = new Map<string, Set<string>>();
  for (const record of records) {
    const previous = record.metadata.previous;
    if (previous === undefined || versions.has(previous)) continue;
    const ids = wanted.get(record.path) ?? new Set<string>();
    ids.add(previous);
    wanted.set(record.path, ids);
  }
  if (wanted.size === 0) return versions;
  await usingProject(project, async (opened) => {
    for (const [path, ids] of wanted)
      for (const record of await readPathVersionsById(opened, path, ids))
        versions.set(record.artifactId, record);
  });
  return versions;
}
