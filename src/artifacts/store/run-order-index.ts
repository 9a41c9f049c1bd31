import { constants } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { artifactRecordsPath, isRunId, RUN_ORDER_INDEX_PATH } from '../../project/index.js';
import type { RunId } from '../../project/index.js';
import { errnoOf, quickFs } from '../../workspace/index.js';
import type { ArtifactRecord } from '../artifact-record.js';
import { readOptional } from './history-journal.js';
import { appendLines } from './record-lines.js';
import type { RecordRoots } from './record-roots.js';

/** O_NONBLOCK: a FIFO planted in place of the file never blocks the open, which runs on the calling thread. */
const READ_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK;

/** One line of runs.jsonl: a run and when its first record was made. */
export interface RunStart {
  readonly runId: RunId;
  readonly startedAt: string;
}

const runStartSchema = z.object({ runId: z.string().refine(isRunId), startedAt: z.iso.datetime() }).strict();

/** Runs of this process whose first record was already looked at, by project and run id. */
const startedRuns = new Set<string>();

/** Renders run starts as runs.jsonl lines. */
export function renderRunStarts(starts: readonly RunStart[]): string {
  return starts
    .map((start) => `${JSON.stringify({ runId: start.runId, startedAt: start.startedAt })}\n`)
    .join('');
}

/**
 * Appends a line to runs.jsonl for each run whose first record is among `records` (just appended to its
 * artifacts.jsonl): the run's first line is one of them. One small read per run and process.
 */
export async function appendRunStarts(
  projectDir: string,
  records: readonly ArtifactRecord[],
  durability: 'fsync' | 'none' = 'fsync',
  roots?: RecordRoots,
): Promise<void> {
  const byRun = new Map<RunId, ArtifactRecord[]>();
  for (const record of records) byRun.set(record.runId, [...(byRun.get(record.runId) ?? []), record]);
  const starts: RunStart[] = [];
  for (const [runId, batch] of byRun) {
    const key = `${projectDir}\0${runId}`;
    // A run's first line never changes (the file is append-only): once seen, later batches cannot hold it.
    if (startedRuns.has(key)) continue;
    const first = await readFirstLine(projectDir, artifactRecordsPath(runId));
    if (first === undefined) continue;
    startedRuns.add(key);
    const opens = batch.some(
      (record) => record.artifactId === first.artifactId && record.createdAt === first.createdAt,
    );
    if (!opens) continue;
    const earliest = Math.min(...batch.map((record) => Date.parse(record.createdAt)));
    starts.push({ runId, startedAt: new Date(earliest).toISOString() });
  }
  await appendLines(projectDir, RUN_ORDER_INDEX_PATH, renderRunStarts(starts), durability, roots);
}

/**
 * The run whose first record is newest (of equal times, the greater id), from runs.jsonl: undefined when the
 * file names no run or has an unreadable line (the caller then reads every run).
 */
export async function newestIndexedRun(projectDir: string): Promise<RunId | undefined> {
  const text = (await readOptional(projectDir, RUN_ORDER_INDEX_PATH)) ?? '';
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
  projectDir: string,
): Promise<{ readonly starts: ReadonlyMap<string, string>; readonly unreadable: number }> {
  const text = (await readOptional(projectDir, RUN_ORDER_INDEX_PATH)) ?? '';
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
  projectDir: string,
  relative: string,
): Promise<{ readonly artifactId: unknown; readonly createdAt: unknown } | undefined> {
  let handle;
  try {
    handle = await quickFs.open(join(projectDir, relative), READ_FLAGS);
  } catch (error) {
    if (errnoOf(error) === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const buffer = Buffer.alloc(64 * 1024);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    const text = buffer.subarray(0, bytesRead).toString('utf8');
    const end = text.indexOf('\n');
    if (end === -1) return undefined;
    try {
      return JSON.parse(text.slice(0, end)) as { artifactId: unknown; createdAt: unknown };
    } catch {
      return undefined;
    }
  } finally {
    await handle.close();
  }
}
