import type { RunId } from '../../project/index.js';
import type { Project } from '../../store/index.js';
import type { ArtifactRecord } from '../artifact-record.js';
import {
  hasRunFolder,
  newestIndexedRun,
  readArtifactRecords,
  readHistoryCut,
  readHistoryMeta,
  readProjectRecords,
} from '../store/index.js';
import type { ArtifactRecordsRead, HistoryCut, ProjectRecords, RecordLineProblem } from '../store/index.js';
import { LineageError } from './lineage-error.js';

/** Where a checkout finds its records: the run indexes when they can answer, every run's records otherwise. */
export interface CheckoutRecords {
  /** The run whose earliest record is newest (of equal times, the greater id). */
  newestRun(): Promise<RunId>;
  /** The run's own records, in file order. */
  own(runId: RunId): Promise<readonly ArtifactRecord[]>;
  /**
   * Other runs' workspace versions a query at `cut` may include: all of them, or (from the history journal)
   * the newest version per path of everything before `cut.headsBefore` plus every version after it.
   */
  others(cut: HistoryCut, runId: RunId | undefined): Promise<readonly ArtifactRecord[]>;
  /** Unreadable lines of the artifacts.jsonl files read (every run's after a full read). */
  problems(): Promise<readonly RecordLineProblem[]>;
}

/** Opens the record source of one checkout; `useIndexes: false` reads every run (what the indexes must equal). */
export function openCheckoutRecords(
  project: Project,
  options: { readonly useIndexes?: boolean } = {},
): CheckoutRecords {
  const useIndexes = options.useIndexes ?? true;
  let full: Promise<ProjectRecords> | undefined;
  const readAll = (): Promise<ProjectRecords> => (full ??= readProjectRecords(project));
  const ownRead = new Map<RunId, Promise<ArtifactRecordsRead>>();
  return {
    newestRun: async () => {
      if (useIndexes && (await readHistoryMeta(project))?.complete === true) {
        const indexed = await newestIndexedRun(project);
        if (indexed !== undefined && (await hasRunFolder(project, indexed))) return indexed;
      }
      return newestRun((await readAll()).byRun);
    },
    own: async (runId) => {
      if (full !== undefined) return (await full).byRun.get(runId) ?? [];
      let pending = ownRead.get(runId);
      if (pending === undefined) {
        pending = readArtifactRecords(project, runId);
        ownRead.set(runId, pending);
      }
      return (await pending).records;
    },
    others: async (cut, runId) => {
      const indexed = useIndexes ? await readHistoryCut(project, cut) : undefined;
      if (indexed !== undefined) return indexed.filter((record) => record.runId !== runId);
      const { byRun } = await readAll();
      return [...byRun].flatMap(([id, records]) => (id === runId ? [] : records));
    },
    problems: async () => {
      if (full !== undefined) return (await full).problems;
      return (await Promise.all(ownRead.values())).flatMap((read) => read.problems);
    },
  };
}

/** The run whose earliest record is newest: found from records alone, so no run's objects are read. */
function newestRun(byRun: ReadonlyMap<RunId, readonly ArtifactRecord[]>): RunId {
  let newest: { runId: RunId; start: number } | undefined;
  for (const [runId, records] of byRun) {
    if (records.length === 0) continue;
    const start = records.reduce((min, record) => Math.min(min, Date.parse(record.createdAt)), Infinity);
    if (newest === undefined || start >= newest.start) newest = { runId, start };
  }
  if (newest === undefined) {
    throw new LineageError({
      code: 'no_recorded_run',
      message: "the project has no recorded run; start one with 'artifact-ingest run GRAPH'",
    });
  }
  return newest.runId;
}
