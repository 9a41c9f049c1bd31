import { z } from 'zod';
import { artifactRecordsPath, isRunId, RUN_ORDER_INDEX_PATH } from '../../project/index.js';
import type { RunId } from '../../project/index.js';
import { usingProject } from '../../store/index.js';
import type { ProjectRef, ProjectStore } from '../../store/index.js';
import type { ArtifactRecord } from '../artifact-record.js';
import { readOptional } from './history-journal.js';
import { appendLines } from './record-lines.js';

/** How much of a run's artifacts.jsonl is read for its first line: a record line is far shorter. */
const FIRST_LINE_BYTES = 64 * 1024;

/** One line of runs.jsonl: a run and when its first record was made. */
export interface RunStart {
  readonly runId: RunId;
  readonly startedAt: string;
}

const runStartSchema = z.object({ runId: z.string().refine(isRunId), startedAt: z.iso.datetime() }).strict();

/** Runs whose first record this process already looked at, by the store given (a Project's) or the folder named. */
const startedRunsByStore = new WeakMap<ProjectStore, Set<string>>();
const startedRunsByFolder = new Map<string, Set<string>>();

/** The runs already looked at for `project`: a folder path opens a new files store each call, so it counts by folder. */
function startedRunsOf(project: ProjectRef, store: ProjectStore): Set<string> {
  const known =
    typeof project === 'string' ? startedRunsByFolder.get(project) : startedRunsByStore.get(store);
  if (known !== undefined) return known;
  const made = new Set<string>();
  if (typeof project === 'string') startedRunsByFolder.set(project, made);
  else startedRunsByStore.set(store, made);
  return made;
}

/** Renders run starts as runs.jsonl lines. */
export function renderRunStarts(starts: readonly RunStart[]): string {
  return starts
    .map((start) => `${JSON.stringify({ runId: start.runId, startedAt: start.startedAt })}\n`)
    .join('');
}

/**
 * Appends a line to runs.jsonl for each run whose first record is among `records` (just appended to its
 * artifacts.jsonl): the run's first line is one of them. One small read per run and process (per store given).
 */
export async function appendRunStarts(
  project: ProjectRef,
  records: readonly ArtifactRecord[],
  durability: 'fsync' | 'none' = 'fsync',
): Promise<void> {
  await usingProject(project, async ({ store }) => {
    const byRun = new Map<RunId, ArtifactRecord[]>();
    for (const record of records) byRun.set(record.runId, [...(byRun.get(record.runId) ?? []), record]);
    const seen = startedRunsOf(project, store);
    const starts: RunStart[] = [];
    for (const [runId, batch] of byRun) {
      // A run's first line never changes (the file is append-only): once seen, later batches cannot hold it.
      if (seen.has(runId)) continue;
      const first = await readFirstLine(store, artifactRecordsPath(runId));
      if (first === undefined) continue;
      seen.add(runId);
      const opens = batch.some(
        (record) => record.artifactId === first.artifactId && record.createdAt === first.createdAt,
      );
      if (!opens) continue;
      const earliest = Math.min(...batch.map((record) => Date.parse(record.createdAt)));
      starts.push({ runId, startedAt: new Date(earliest).toISOString() });
    }
    await appendLines(store, RUN_ORDER_INDEX_PATH, renderRunStarts(starts), durability);
  });
}

/**
 * The run whose first record is newest (of equal times, the greater id), from runs.jsonl: undefined when the
 * file names no run or has an unreadable line (the caller then reads every run).
 */
export async function newestIndexedRun(project: ProjectRef): Promise<RunId | undefined> {
  const text = (await readOptional(project, RUN_ORDER_INDEX_PATH)) ?? '';
  const starts = new Map<RunId, number>();
  for (const line of text.split('\n')) {
    if (line === '') continue;
    let parsed;
    try {
      parsed = runStartSchema.safeParse(JSON.parse(line));
    } catch {
      return undefined;
    }
    if (!parsed.success) return undefined;
    const runId = parsed.data.runId;
    const time = Date.parse(parsed.data.startedAt);
    // A run listed twice (an import retried) started at the earlier time.
    starts.set(runId, Math.min(time, starts.get(runId) ?? Infinity));
  }
  let newest: { runId: RunId; start: number } | undefined;
  for (const [runId, start] of starts)
    if (newest === undefined || start > newest.start || (start === newest.start && runId > newest.runId))
      newest = { runId, start };
  return newest?.runId;
}

/** Reads runs.jsonl as a map of run id to start (for verify); unreadable lines are counted. */
export async function readRunStarts(
  project: ProjectRef,
): Promise<{ readonly starts: ReadonlyMap<string, string>; readonly unreadable: number }> {
  const text = (await readOptional(project, RUN_ORDER_INDEX_PATH)) ?? '';
  const starts = new Map<string, string>();
  let unreadable = 0;
  for (const line of text.split('\n')) {
    if (line === '') continue;
    try {
      const parsed = runStartSchema.safeParse(JSON.parse(line));
      if (!parsed.success) unreadable += 1;
      else {
        const known = starts.get(parsed.data.runId);
        if (known === undefined || Date.parse(parsed.data.startedAt) < Date.parse(known))
          starts.set(parsed.data.runId, parsed.data.startedAt);
      }
    } catch {
      unreadable += 1;
    }
  }
  return { starts, unreadable };
}

/** The first line of a run's records, parsed just enough to compare it; undefined when there is none. */
async function readFirstLine(
  store: ProjectStore,
  key: string,
): Promise<{ readonly artifactId: unknown; readonly createdAt: unknown } | undefined> {
  const start = await store.readFrom(key, 0, FIRST_LINE_BYTES);
  if (start === undefined) return undefined;
  const text = Buffer.from(start.bytes).toString('utf8');
  const end = text.indexOf('\n');
  if (end === -1) return undefined;
  try {
    return JSON.parse(text.slice(0, end)) as { artifactId: unknown; createdAt: unknown };
  } catch {
    return undefined;
  }
}
