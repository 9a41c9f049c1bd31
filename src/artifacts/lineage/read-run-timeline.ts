import { isRunId, manifestPath, runStatePath, UnknownRunError } from '../../project/index.js';
import type { NodeId, RunId } from '../../project/index.js';
import { usingProject } from '../../store/index.js';
import type { Project, ProjectRef } from '../../store/index.js';
import { hasRunFolder, readArtifactRecords } from '../store/index.js';
import type { ArtifactRecord } from '../artifact-record.js';
import { isVersionRecord } from '../store/index.js';
import type { ObjectStore } from '../store/index.js';
import { ObjectStoreError } from '../store/index.js';
import type { RecordLineProblem } from '../store/index.js';
import { traceContentSchema } from '../trace-content.js';
import type { TraceContent } from '../trace-content.js';

/** What one ingest of a run made by `artifact-ingest ingest --run-id` read from its manifest, when readable. */
export interface IngestStepManifest {
  /** Project-relative path of the manifest. */
  readonly path: string;
  readonly docPath: string;
  /** When the ingest ran. */
  readonly ts: string;
  readonly summary: {
    readonly total_blocks: number;
    readonly written: number;
    readonly skipped: number;
    readonly rejected: number;
  };
}

/**
 * One step of a run: a node execution (its trace and the version records it produced) or, in a run made by
 * `artifact-ingest ingest --run-id`, one ingest (its task id's records; there is no trace).
 */
export interface TimelineStep {
  readonly kind: 'node' | 'ingest';
  /** 1-based among the run's completed steps, in the order they finished; null for a failed execution. */
  readonly step: number | null;
  readonly taskId: string;
  readonly agentId: string;
  readonly outcome: TraceContent['outcome'];
  /** The execution's `trace` record; null for an ingest. */
  readonly trace: ArtifactRecord | null;
  /** The trace's content, read from the object store and verified; null for an ingest. */
  readonly content: TraceContent | null;
  /** An ingest's manifest, when it could be read. */
  readonly manifest?: IngestStepManifest;
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

/** A run as its records tell it: every node execution (or ingest) in the order it finished. */
export interface RunTimeline {
  readonly runId: string;
  /** `graph` for a run of the runtime or a workflow, `ingest` for one made by `artifact-ingest ingest --run-id`. */
  readonly kind: 'graph' | 'ingest';
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
 * store); throws UnknownRunError when the id names no run folder. A run without traces and without state.json
 * was made by `artifact-ingest ingest --run-id`: its steps are its ingests, one per task id, in record order.
 */
export function readRunTimeline(project: ProjectRef, runIdText: string): Promise<RunTimeline> {
  return usingProject(project, (opened) => readTimeline(opened, runIdText));
}

async function readTimeline(project: Project, runIdText: string): Promise<RunTimeline> {
  const runId = await checkRunFolder(project, runIdText);
  const read = await readArtifactRecords(project, runId);
  const traces = read.records.filter((record) => !isVersionRecord(record));
  if (traces.length === 0 && (await project.store.info(runStatePath(runId))) === undefined) {
    return ingestTimeline(project, runId, read.records, read.problems);
  }
  // The objects are opened only when there is a trace to read, so a run without traces touches nothing.
  const contents = traces.length === 0 ? [] : await readTraceContents(project, runId, traces);

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
      kind: 'node',
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
    kind: 'graph',
    graph: firstContent == null ? null : { ...firstContent.graph },
    startedAt: earliestTime([
      ...(read.records[0] === undefined ? [] : [read.records[0].createdAt]),
      ...steps.flatMap((step) => (step.content === null ? [] : [step.content.startedAt])),
    ]),
    steps,
    unfinished,
    problems,
  };
}

/** The run's id once its folder is known to exist; UnknownRunError for anything else. */
async function checkRunFolder(project: Project, runId: string): Promise<RunId> {
  if (!isRunId(runId) || !(await hasRunFolder(project, runId))) throw new UnknownRunError(runId);
  return runId;
}

/** The timeline of a run made by `ingest --run-id`: one completed step per task id, in the order of its first record. */
async function ingestTimeline(
  project: Project,
  runId: RunId,
  records: readonly ArtifactRecord[],
  problems: readonly TimelineProblem[],
): Promise<RunTimeline> {
  const byTask = new Map<string, ArtifactRecord[]>();
  for (const record of records) byTask.set(record.taskId, [...(byTask.get(record.taskId) ?? []), record]);
  const steps: TimelineStep[] = [];
  for (const [taskId, artifacts] of byTask) {
    const first = artifacts[0];
    if (first === undefined) continue;
    const manifest = await readIngestManifest(project, runId, first.taskId);
    steps.push({
      kind: 'ingest',
      step: steps.length + 1,
      taskId,
      agentId: first.agentId,
      outcome: 'completed',
      trace: null,
      content: null,
      ...(manifest === undefined ? {} : { manifest }),
      artifacts,
    });
  }
  return {
    runId,
    kind: 'ingest',
    graph: null,
    startedAt: earliestTime([
      ...records.map((record) => record.createdAt),
      ...steps.flatMap((step) => (step.manifest === undefined ? [] : [step.manifest.ts])),
    ]),
    steps,
    unfinished: [],
    problems,
  };
}

/** An ingest's manifest v1, read loosely (artifacts sits beside ingest, not above it): undefined when unreadable. */
async function readIngestManifest(
  project: Project,
  runId: RunId,
  nodeId: NodeId,
): Promise<IngestStepManifest | undefined> {
  const path = manifestPath(runId, nodeId);
  let value: unknown;
  try {
    const text = await project.store.readText(path);
    if (text === undefined) return undefined;
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const manifest = value as {
    source?: { doc_path?: unknown };
    ts?: unknown;
    summary?: Record<string, unknown>;
  };
  const summary = manifest.summary ?? {};
  const count = (key: string): number | undefined =>
    typeof summary[key] === 'number' && Number.isSafeInteger(summary[key]) ? summary[key] : undefined;
  const docPath = manifest.source?.doc_path;
  const [total, written, skipped, rejected] = ['total_blocks', 'written', 'skipped', 'rejected'].map(count);
  if (typeof docPath !== 'string' || typeof manifest.ts !== 'string') return undefined;
  if (total === undefined || written === undefined || skipped === undefined || rejected === undefined)
    return undefined;
  return { path, docPath, ts: manifest.ts, summary: { total_blocks: total, written, skipped, rejected } };
}

async function readTraceContents(
  project: Project,
  runId: RunId,
  traces: readonly ArtifactRecord[],
): Promise<(TraceContent | UnreadableTrace)[]> {
  const store = await project.store.openObjects();
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
  runId: RunId,
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
