import { ID_PATTERN } from '../../project/index.js';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { errnoOf } from '../../workspace/index.js';
import { readArtifactRecords } from '../store/index.js';
import type { ArtifactRecord } from '../artifact-record.js';
import { isVersionRecord } from '../store/index.js';
import { LineageError } from './lineage-error.js';
import { openObjectStore } from '../store/index.js';
import type { ObjectStore } from '../store/index.js';
import { ObjectStoreError } from '../store/index.js';
import type { RecordLineProblem } from '../store/index.js';
import { traceContentSchema } from '../trace-content.js';
import type { TraceContent } from '../trace-content.js';

/** One node execution of a run: its trace and the version records it produced. */
export interface TimelineStep {
  /** 1-based among the run's completed executions, in the order their traces were written; null for a failed one. */
  readonly step: number | null;
  readonly taskId: string;
  readonly agentId: string;
  readonly outcome: TraceContent['outcome'];
  /** The execution's `trace` record. */
  readonly trace: ArtifactRecord;
  /** The trace's content, read from the object store and verified. */
  readonly content: TraceContent;
  /** The execution's version records: its task's records after that task's previous trace, in file order. */
  readonly artifacts: readonly ArtifactRecord[];
}

/** Why a trace record's content could not be read: its object is missing, corrupt, or not a trace. */
export type UnreadableTraceReason = 'missing_object' | 'corrupt_object' | 'invalid_trace';

/** A trace record whose content could not be read; its execution is left out of the steps. */
export interface UnreadableTrace {
  readonly code: 'unreadable_trace';
  readonly artifactId: string;
  readonly taskId: string;
  readonly contentHash: string;
  readonly reason: UnreadableTraceReason;
  readonly message: string;
}

/** Something of a run that could not be read: a bad line of its artifacts.jsonl or an unreadable trace. */
export type TimelineProblem = RecordLineProblem | UnreadableTrace;

/** A run as its records tell it: every node execution in the order it finished. */
export interface RunTimeline {
  readonly runId: string;
  /** The graph the run ran, from its first readable trace; null when it has none. */
  readonly graph: { readonly name: string; readonly hash: string } | null;
  /** The earliest of the first record's `createdAt` and the traces' `startedAt`; null for a run without records. */
  readonly startedAt: string | null;
  /** One step per readable trace record, in file order. */
  readonly steps: readonly TimelineStep[];
  /** Version records that no trace of their task follows: an execution that was interrupted. */
  readonly unfinished: readonly ArtifactRecord[];
  readonly problems: readonly TimelineProblem[];
}

/**
 * Reads a run's timeline from its own artifacts.jsonl and its trace objects (each verified by the object
 * store); throws LineageError `unknown_run` when the project has no folder for the run.
 */
export async function readRunTimeline(projectDir: string, runId: string): Promise<RunTimeline> {
  await checkRunFolder(projectDir, runId);
  const read = await readArtifactRecords(projectDir, runId);
  const traces = read.records.filter((record) => !isVersionRecord(record));
  // The store is opened only when there is a trace to read, so a run without traces touches nothing.
  const contents = traces.length === 0 ? [] : await readTraceContents(projectDir, runId, traces);

  const pending = new Map<string, ArtifactRecord[]>();
  const steps: TimelineStep[] = [];
  const problems: TimelineProblem[] = [...read.problems];
  let completed = 0;
  let traceIndex = 0;
  for (const record of read.records) {
    if (isVersionRecord(record)) {
      const list = pending.get(record.taskId) ?? [];
      list.push(record);
      pending.set(record.taskId, list);
      continue;
    }
    // Concurrent nodes interleave their lines: a record belongs to the next trace of its own task.
    const artifacts = pending.get(record.taskId) ?? [];
    pending.delete(record.taskId);
    const content = contents[traceIndex++];
    if (content === undefined || 'code' in content) {
      if (content !== undefined) problems.push(content);
      continue;
    }
    const step = content.outcome === 'completed' ? ++completed : null;
    steps.push({
      step,
      taskId: record.taskId,
      agentId: record.agentId,
      outcome: content.outcome,
      trace: record,
      content,
      artifacts,
    });
  }

  const unfinished = read.records.filter(
    (record) => isVersionRecord(record) && pending.get(record.taskId)?.includes(record) === true,
  );
  const firstContent = steps[0]?.content;
  return {
    runId,
    graph: firstContent === undefined ? null : { ...firstContent.graph },
    startedAt: earliestTime([
      ...(read.records[0] === undefined ? [] : [read.records[0].createdAt]),
      ...steps.map((step) => step.content.startedAt),
    ]),
    steps,
    unfinished,
    problems,
  };
}

/** Throws `unknown_run` unless `.agent/runs/<runId>/` is a directory. */
async function checkRunFolder(projectDir: string, runId: string): Promise<void> {
  const unknown = (): LineageError =>
    new LineageError({
      code: 'unknown_run',
      message: `run ${JSON.stringify(runId)} has no folder in .agent/runs/; list the runs with 'artifact-ingest runs'`,
    });
  if (!ID_PATTERN.test(runId)) throw unknown();
  try {
    if (!(await stat(join(projectDir, '.agent', 'runs', runId))).isDirectory()) throw unknown();
  } catch (error) {
    if (errnoOf(error) === 'ENOENT' || errnoOf(error) === 'ENOTDIR') throw unknown();
    throw error;
  }
}

async function readTraceContents(
  projectDir: string,
  runId: string,
  traces: readonly ArtifactRecord[],
): Promise<(TraceContent | UnreadableTrace)[]> {
  const store = await openObjectStore(projectDir);
  try {
    const contents: (TraceContent | UnreadableTrace)[] = [];
    for (const trace of traces) contents.push(await readTraceContent(store, runId, trace));
    return contents;
  } finally {
    await store.close();
  }
}

async function readTraceContent(
  store: ObjectStore,
  runId: string,
  trace: ArtifactRecord,
): Promise<TraceContent | UnreadableTrace> {
  const unreadable = (reason: UnreadableTraceReason, detail: string): UnreadableTrace => ({
    code: 'unreadable_trace',
    artifactId: trace.artifactId,
    taskId: trace.taskId,
    contentHash: trace.contentHash,
    reason,
    message: `trace ${trace.artifactId} of node ${trace.taskId} is unreadable: ${detail}`,
  });
  let bytes: Uint8Array;
  try {
    bytes = await store.get(trace.contentHash);
  } catch (error) {
    if (error instanceof ObjectStoreError && error.code !== 'malformed_hash')
      return unreadable(error.code, error.message);
    throw error;
  }
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    return unreadable('invalid_trace', `object ${trace.contentHash} is not JSON`);
  }
  const parsed = traceContentSchema.safeParse(value);
  if (!parsed.success)
    return unreadable(
      'invalid_trace',
      `object ${trace.contentHash} is not a trace (${parsed.error.issues.map((issue) => `${issue.path.map(String).join('.')}: ${issue.message}`).join('; ')})`,
    );
  if (parsed.data.runId !== runId || parsed.data.nodeId !== trace.taskId) {
    return unreadable(
      'invalid_trace',
      `object ${trace.contentHash} is the trace of ${parsed.data.runId}/${parsed.data.nodeId}, not ${runId}/${trace.taskId}`,
    );
  }
  return parsed.data;
}

/** The earliest of ISO times (compared as instants, since precisions may differ), or null for none. */
export function earliestTime(times: readonly string[]): string | null {
  let earliest: string | null = null;
  for (const time of times) if (earliest === null || Date.parse(time) < Date.parse(earliest)) earliest = time;
  return earliest;
}
