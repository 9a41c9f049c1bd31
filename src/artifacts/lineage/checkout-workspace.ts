import { artifactRecordsPath, isRunId, UnknownRunError, WORKSPACE_DIR } from '../../project/index.js';
import type { RunId } from '../../project/index.js';
import path from 'node:path';
import { z } from 'zod';
import { openConfinedRoot } from '../../workspace/index.js';
import { judgeRecordPath } from '../judge-record-path.js';
import type { ArtifactRecord } from '../artifact-record.js';
import { checkCheckoutTarget } from './check-checkout-target.js';
import { LineageError } from './lineage-error.js';
import { usingProject } from '../../store/index.js';
import type { Project, ProjectRef } from '../../store/index.js';
import type { ObjectStore } from '../store/index.js';
import { ObjectStoreError } from '../store/index.js';
import { supersedes } from '../store/index.js';
import { openCheckoutRecords } from './checkout-records.js';
import type { CheckoutRecords } from './checkout-records.js';
import { readRunTimeline } from './read-run-timeline.js';
import type { TimelineStep } from './read-run-timeline.js';
import type { RecordLineProblem } from '../store/index.js';

/** Options of {@link checkoutWorkspace}: a target folder and exactly one of `step` and `at`. */
export interface CheckoutOptions {
  /** The folder to rebuild the workspace into: missing or empty, and outside the project's workspace/ and .agent/. */
  readonly to: string;
  /** The state after the run's N-th completed step (0: before the run). */
  readonly step?: number;
  /** An ISO 8601 date-time with a zone: the state at that instant. */
  readonly at?: string;
  /** The run `step` counts in (default: the run whose first record is newest), or the run `at` is limited to. */
  readonly runId?: string;
  /** False: read every run's records instead of the run indexes (the answer is the same; for tests and checks). */
  readonly useIndexes?: boolean;
}

/** The point in the project's history a checkout rebuilt. */
export type CheckoutCut =
  | {
      readonly kind: 'step';
      readonly runId: string;
      readonly step: number;
      /** The step's trace `createdAt` (step 0: the run's start); null for step 0 of a run without records. */
      readonly time: string | null;
    }
  | { readonly kind: 'at'; readonly time: string; readonly runId?: string };

/** One file a checkout wrote, and the version record it came from. */
export interface CheckedOutFile {
  /** Relative to the checkout folder (and to workspace/). */
  readonly path: string;
  readonly artifactId: string;
  readonly runId: string;
  readonly taskId: string;
  readonly contentHash: string;
  readonly bytes: number;
}

/** What {@link checkoutWorkspace} rebuilt. */
export interface Checkout {
  /** The checkout folder, absolute. */
  readonly to: string;
  readonly cut: CheckoutCut;
  /** Sorted by path. */
  readonly files: readonly CheckedOutFile[];
  /**
   * Unreadable lines of the artifacts.jsonl files read: the selected run's when the run indexes answered,
   * every run's when they could not (full `verify` reports every run's).
   */
  readonly problems: readonly RecordLineProblem[];
}

const WORKSPACE_PREFIX = `${WORKSPACE_DIR}/`;
const isoTimeSchema = z.iso.datetime({ offset: true });

/**
 * Rebuilds the workspace as it was at a step of a run or at a time into `to` (never the live workspace):
 * every selected object is read and verified before the first file is written, so a missing or corrupt
 * object leaves `to` untouched.
 */
export function checkoutWorkspace(project: ProjectRef, options: CheckoutOptions): Promise<Checkout> {
  return usingProject(project, (opened) => checkout(opened, options));
}

/** The files a checkout would write, read and verified, without writing anything: {@link readCheckoutFiles}. */
export interface CheckoutContents {
  readonly cut: CheckoutCut;
  /** Sorted by path; each record's `path` is project-relative (`workspace/...`), its bytes verified by hash. */
  readonly contents: readonly (readonly [ArtifactRecord, Uint8Array])[];
  readonly problems: readonly RecordLineProblem[];
}

/**
 * What `checkoutWorkspace` with the same step or time would write, read from the object store and verified,
 * writing nothing: the one selection a checkout and `export git` share.
 */
export function readCheckoutFiles(
  project: ProjectRef,
  options: Omit<CheckoutOptions, 'to'>,
): Promise<CheckoutContents> {
  return usingProject(project, (opened) => select(opened, options));
}

async function checkout(project: Project, options: CheckoutOptions): Promise<Checkout> {
  checkSelection(options);
  const to = path.resolve(options.to);
  await checkCheckoutTarget(project.dir, to);
  const { cut, contents, problems } = await select(project, options);
  const root = await openConfinedRoot(to, { create: true });
  try {
    for (const [record, bytes] of contents) {
      const relative = record.path.slice(WORKSPACE_PREFIX.length);
      // A checkout is a copy that can be rebuilt at any time, so it skips the per-file fsync.
      const outcome = await root.write(relative, bytes, { durability: 'none' });
      if (outcome.status === 'refused')
        throw new Error(`cannot check out ${record.path} into ${to}: ${outcome.message}`);
    }
  } finally {
    await root.close();
  }
  return {
    to,
    cut,
    files: contents.map(([record, bytes]) => ({
      path: record.path.slice(WORKSPACE_PREFIX.length),
      artifactId: record.artifactId,
      runId: record.runId,
      taskId: record.taskId,
      contentHash: record.contentHash,
      bytes: bytes.byteLength,
    })),
    problems,
  };
}

/** Parsed once here: an id that is no id names no run either; exactly one of step and at. */
function checkSelection(options: Omit<CheckoutOptions, 'to'>): RunId | undefined {
  if (options.runId !== undefined && !isRunId(options.runId)) throw new UnknownRunError(options.runId);
  if ((options.step === undefined) === (options.at === undefined))
    throw new Error('checkoutWorkspace needs exactly one of step and at');
  return options.runId;
}

async function select(project: Project, options: Omit<CheckoutOptions, 'to'>): Promise<CheckoutContents> {
  const { step, at } = options;
  const runId = checkSelection(options);
  const records = openCheckoutRecords(project, { useIndexes: options.useIndexes ?? true });
  const selection =
    at !== undefined
      ? await selectAtTime(project, records, at, runId)
      : await selectAtStep(project, records, step ?? 0, runId);
  const winners = latestByPath(selection.other, selection.own);
  for (const record of winners) {
    // Recorded paths passed these rules when written; one that fails now was edited by hand or imported by a
    // version that did not check it: stop before reading an object or writing a file.
    const refused = judgeRecordPath(record);
    if (refused !== undefined) {
      throw new LineageError({
        code: 'unsafe_record_path',
        message: `record ${record.artifactId} (${record.type} of run ${record.runId}, node ${record.taskId}) ${refused.message} (rule ${refused.rule}); no writer of artifact-ingest records such a path, so nothing was written: remove that line from ${artifactRecordsPath(record.runId)} (or the run), run 'artifact-ingest reindex', and check out again`,
      });
    }
  }
  const contents = await readContents(project, winners);
  return { cut: selection.cut, contents, problems: await records.problems() };
}

/** The records a cut includes: the selected run's (in file order) and every other run's. */
interface Selection {
  readonly cut: CheckoutCut;
  readonly own: readonly ArtifactRecord[];
  readonly other: readonly ArtifactRecord[];
}

async function selectAtStep(
  project: Project,
  records: CheckoutRecords,
  step: number,
  requestedRun: RunId | undefined,
): Promise<Selection> {
  const runId = requestedRun ?? (await records.newestRun());
  const timeline = await readRunTimeline(project, runId);
  const unreadable = timeline.problems.find((problem) => problem.code === 'unreadable_trace');
  if (unreadable !== undefined) {
    throw new LineageError({
      code: unreadable.reason === 'missing_object' ? 'missing_object' : 'corrupt_object',
      message: `${unreadable.message}; the run's steps cannot be counted, restore the object or check out with --at`,
    });
  }
  const completed = timeline.steps.filter((entry) => entry.step !== null);
  if (!Number.isSafeInteger(step) || step < 0 || step > completed.length) {
    throw new LineageError({
      code: 'step_out_of_range',
      message:
        completed.length === 0
          ? `run ${runId} has no completed step; the only step is 0 (before the run)`
          : `run ${runId} has steps 0 to ${completed.length} (0: before the run), not ${step}`,
    });
  }
  const own = completed.slice(0, step).flatMap((entry) => entry.artifacts);
  const time = step === 0 ? timeline.startedAt : (stepTime(completed[step - 1]) ?? null);
  const limit = time === null ? Infinity : Date.parse(time);
  // Step 0 is strictly before the run; step N includes what other runs wrote up to the step's trace.
  const included = (record: ArtifactRecord): boolean =>
    step === 0 ? Date.parse(record.createdAt) < limit : Date.parse(record.createdAt) <= limit;
  const start = await earliestOf(records, runId, timeline.startedAt);
  const cut = { headsBefore: Math.min(step === 0 ? limit : limit + 1, start), until: limit };
  const other = (await records.others(cut, runId)).filter(included);
  return { cut: { kind: 'step', runId, step, time }, own, other };
}

async function selectAtTime(
  project: Project,
  records: CheckoutRecords,
  at: string,
  runId: RunId | undefined,
): Promise<Selection> {
  if (!isoTimeSchema.safeParse(at).success) {
    throw new LineageError({
      code: 'invalid_time',
      message: `${JSON.stringify(at)} is not an ISO 8601 date-time with a zone; write it like 2026-02-24T10:30:00Z or 2026-02-24T12:30:00+02:00`,
    });
  }
  const limit = Date.parse(at);
  const before = (record: ArtifactRecord): boolean => Date.parse(record.createdAt) <= limit;
  if (runId === undefined) {
    const other = await records.others({ headsBefore: limit + 1, until: limit }, undefined);
    return { cut: { kind: 'at', time: at }, own: [], other: other.filter(before) };
  }
  const { startedAt } = await readRunTimeline(project, runId);
  const start = startedAt === null ? Infinity : Date.parse(startedAt);
  const cut = { headsBefore: Math.min(limit + 1, await earliestOf(records, runId, startedAt)), until: limit };
  return {
    cut: { kind: 'at', time: at, runId },
    own: (await records.own(runId)).filter(before),
    // Other runs count up to the run's start, and never past TIME when TIME is earlier.
    other: (await records.others(cut, runId)).filter(
      (record) => before(record) && Date.parse(record.createdAt) < start,
    ),
  };
}

/** The earliest time of the run (its start, or an earlier record): no version of it is in a heads file before it. */
async function earliestOf(records: CheckoutRecords, runId: RunId, startedAt: string | null): Promise<number> {
  const own = await records.own(runId);
  return own.reduce(
    (min, record) => Math.min(min, Date.parse(record.createdAt)),
    startedAt === null ? Infinity : Date.parse(startedAt),
  );
}

/** When a step finished: its trace's time, or for an ingest (no trace) its last record's. */
function stepTime(step: TimelineStep | undefined): string | undefined {
  return step?.trace?.createdAt ?? step?.artifacts.at(-1)?.createdAt;
}

/** Whether a record is a version of a workspace file (messages and traces are not in the workspace). */
function isWorkspaceVersion(record: ArtifactRecord): boolean {
  return (record.type === 'file' || record.type === 'design') && record.path.startsWith(WORKSPACE_PREFIX);
}

/**
 * The newest included version of each workspace path, sorted by path: newest `createdAt` wins; among other
 * runs' records of equal time the greater run id wins (supersedes), whatever order they were read in; among the
 * selected run's own records the later line wins; other runs' records lose ties to the selected run's.
 */
function latestByPath(other: readonly ArtifactRecord[], own: readonly ArtifactRecord[]): ArtifactRecord[] {
  const winners = new Map<string, ArtifactRecord>();
  for (const record of other) {
    if (!isWorkspaceVersion(record)) continue;
    const current = winners.get(record.path);
    if (current === undefined || supersedes(record, current)) winners.set(record.path, record);
  }
  const ownLatest = new Map<string, ArtifactRecord>();
  for (const record of own) if (isWorkspaceVersion(record)) ownLatest.set(record.path, record);
  for (const [path, record] of ownLatest) {
    const current = winners.get(path);
    if (current === undefined || Date.parse(record.createdAt) >= Date.parse(current.createdAt))
      winners.set(path, record);
  }
  return [...winners.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** Reads and verifies every winner's object, all before anything is written. */
async function readContents(
  project: Project,
  winners: readonly ArtifactRecord[],
): Promise<[ArtifactRecord, Uint8Array][]> {
  if (winners.length === 0) return [];
  const store = await project.store.openObjects();
  try {
    const byHash = new Map<string, Uint8Array>();
    const contents: [ArtifactRecord, Uint8Array][] = [];
    for (const record of winners) {
      let bytes = byHash.get(record.contentHash);
      if (bytes === undefined) {
        bytes = await readObject(store, record);
        byHash.set(record.contentHash, bytes);
      }
      contents.push([record, bytes]);
    }
    return contents;
  } finally {
    await store.close();
  }
}

async function readObject(store: ObjectStore, record: ArtifactRecord): Promise<Uint8Array> {
  try {
    return await store.get(record.contentHash);
  } catch (error) {
    if (error instanceof ObjectStoreError && error.code !== 'malformed_hash') {
      throw new LineageError({
        code: error.code,
        message: `${record.path} (${record.artifactId} of run ${record.runId}): ${error.message}; nothing was written`,
        cause: error,
      });
    }
    throw error;
  }
}
