import { z } from 'zod';
import {
  artifactRecordsPath,
  HISTORY_INDEX_DIR,
  HISTORY_LOCK_PATH,
  WORKSPACE_DIR,
} from '../../project/index.js';
import { storeLockSlot, usingProject } from '../../store/index.js';
import type { Project, ProjectRef, ProjectStore } from '../../store/index.js';
import { acquireShortLock } from '../../workspace/index.js';
import type { ArtifactRecord } from '../artifact-record.js';
import { listRecordedRuns } from '../../store/index.js';
import { readRecordLines, renderRecordLines } from './record-lines.js';

/** A segment is rolled (its heads written, its entry committed) once its file passes this many bytes. */
export const HISTORY_SEGMENT_BYTES = 128 * 1024;
/** `segments.jsonl`: one line per rolled segment, the commit point of a roll. */
export const HISTORY_SEGMENTS_PATH = `${HISTORY_INDEX_DIR}/segments.jsonl`;
/** `meta.json`: says whether the journal holds every workspace version of every run. */
export const HISTORY_META_PATH = `${HISTORY_INDEX_DIR}/meta.json`;
const LOCK_WAIT_MS = 30_000;

/** The journal file of segment `seq`: workspace version records in append order. */
export function historySegmentPath(seq: number): string {
  return `${HISTORY_INDEX_DIR}/${String(seq)}.jsonl`;
}

/** The heads file of segment `seq`: the newest version of each workspace path after every segment up to `seq`. */
export function historyHeadsPath(seq: number): string {
  return `${HISTORY_INDEX_DIR}/${String(seq)}.heads.jsonl`;
}

/** One committed (rolled) segment: how many records it holds and the range of their `createdAt`. */
export interface HistorySegment {
  readonly seq: number;
  readonly records: number;
  readonly minAt: string;
  readonly maxAt: string;
}

const segmentSchema = z
  .object({
    seq: z.number().int().nonnegative(),
    records: z.number().int().nonnegative(),
    minAt: z.iso.datetime(),
    maxAt: z.iso.datetime(),
  })
  .strict();

/** The content of meta.json. */
export interface HistoryMeta {
  readonly version: 1;
  /** True when the journal holds every workspace version of every run (written by reindex or a fresh project). */
  readonly complete: boolean;
  /** Why it is not complete, when it is not. */
  readonly reason?: string;
}

const metaSchema = z
  .object({ version: z.literal(1), complete: z.boolean(), reason: z.string().optional() })
  .strict();

/** Whether a record is a version of a workspace file: what the journal holds and a checkout rebuilds. */
export function isWorkspaceVersion(record: ArtifactRecord): boolean {
  return (record.type === 'file' || record.type === 'design') && record.path.startsWith(`${WORKSPACE_DIR}/`);
}

/**
 * Whether `next` replaces `current` as the newest version of their path among other runs' records: a newer
 * `createdAt` wins; of equal times the greater run id wins, and within one run the later line (checkout's rule
 * when it reads runs in id order, so the winner does not depend on the order records were appended in).
 */
export function supersedes(next: ArtifactRecord, current: ArtifactRecord): boolean {
  const a = Date.parse(next.createdAt);
  const b = Date.parse(current.createdAt);
  return a !== b ? a > b : next.runId >= current.runId;
}

/** Folds records into the newest version per path, by {@link supersedes}. */
export function foldHeads(heads: Map<string, ArtifactRecord>, records: readonly ArtifactRecord[]): void {
  for (const record of records) {
    const current = heads.get(record.path);
    if (current === undefined || supersedes(record, current)) heads.set(record.path, record);
  }
}

/** Reads meta.json; undefined when it is missing or unreadable (the journal is then not known complete). */
export async function readHistoryMeta(project: ProjectRef): Promise<HistoryMeta | undefined> {
  const text = await readOptional(project, HISTORY_META_PATH);
  if (text === undefined) return undefined;
  try {
    const parsed = metaSchema.safeParse(JSON.parse(text));
    return parsed.success
      ? { version: 1, complete: parsed.data.complete, ...reasonOf(parsed.data) }
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The committed segments in order. A line that is not a segment entry is a roll interrupted mid-append and is
 * skipped: the roll did not commit, so its segment is still the open one. `ordered` is false when the valid
 * entries are not 0, 1, 2 ... (an edited file): readers then do not trust the journal.
 */
export async function readHistorySegments(
  project: ProjectRef,
): Promise<{ readonly segments: readonly HistorySegment[]; readonly ordered: boolean }> {
  // Read on the calling thread (`readFrom`, D81): every recorded batch reads it, and it stays small (a line per roll).
  const stored = await usingProject(project, ({ store }) => store.readFrom(HISTORY_SEGMENTS_PATH, 0));
  const text = stored === undefined ? '' : Buffer.from(stored.bytes).toString('utf8');
  const segments: HistorySegment[] = [];
  for (const line of text.split('\n')) {
    if (line === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      continue;
    }
    const parsed = segmentSchema.safeParse(value);
    if (parsed.success) segments.push(parsed.data);
  }
  return { segments, ordered: segments.every((segment, index) => segment.seq === index) };
}

/**
 * Appends the workspace versions among `records` to the open segment of the history journal, under the
 * journal's short lock, and rolls the segment when it passes {@link HISTORY_SEGMENT_BYTES}: its heads file is
 * written first, then its entry is appended to segments.jsonl (the commit point; a crash before it leaves the
 * segment open and the heads file unread, and the next roll rewrites it). A recorder passes its session.
 */
export async function appendToHistory(
  project: ProjectRef,
  records: readonly ArtifactRecord[],
  durability: 'fsync' | 'none' = 'fsync',
): Promise<void> {
  const versions = records.filter(isWorkspaceVersion);
  if (versions.length === 0) return;
  await usingProject(project, async (opened) => {
    const { store } = opened;
    const attempt = await acquireShortLock(storeLockSlot(store, HISTORY_LOCK_PATH), { waitMs: LOCK_WAIT_MS });
    if (!attempt.acquired) {
      throw new Error(
        `cannot append to ${HISTORY_INDEX_DIR}: ${attempt.holder} held ${HISTORY_LOCK_PATH} for ${String(LOCK_WAIT_MS / 1000)} s; if no process records, remove the lock file`,
      );
    }
    try {
      const { segments } = await readHistorySegments(opened);
      const seq = (segments.at(-1)?.seq ?? -1) + 1;
      if (seq === 0 && (await store.info(historySegmentPath(0))) === undefined) {
        // The journal starts here: complete only when these are the project's first records.
        await writeMeta(store, await startsEmptyProject(opened, versions), durability);
      }
      const file = historySegmentPath(seq);
      await store.append(file, renderRecordLines(versions), { durability });
      if (((await store.info(file))?.size ?? 0) >= HISTORY_SEGMENT_BYTES)
        await rollSegment(opened, seq, durability);
    } finally {
      await attempt.lock.release();
    }
  });
}

/** Writes the heads of segment `seq` and commits it; a segment with an unreadable line marks the journal incomplete. */
async function rollSegment(project: Project, seq: number, durability: 'fsync' | 'none'): Promise<void> {
  const { store } = project;
  const segment = await readRecordLines(project, historySegmentPath(seq));
  const heads = new Map<string, ArtifactRecord>();
  const previous = seq === 0 ? undefined : await readRecordLines(project, historyHeadsPath(seq - 1));
  if (segment.problems.length > 0 || (previous !== undefined && previous.problems.length > 0)) {
    // A torn line lost a version the runs hold: heads built without it would be silently wrong.
    const reason = segment.problems[0]?.message ?? previous?.problems[0]?.message ?? '';
    await writeMeta(store, { version: 1, complete: false, reason }, durability);
    return;
  }
  foldHeads(heads, previous?.records ?? []);
  foldHeads(heads, segment.records);
  const times = segment.records.map((record) => Date.parse(record.createdAt));
  await store.replace(historyHeadsPath(seq), renderRecordLines([...heads.values()]), { durability });
  const entry: HistorySegment = {
    seq,
    records: segment.records.length,
    minAt: new Date(Math.min(...times)).toISOString(),
    maxAt: new Date(Math.max(...times)).toISOString(),
  };
  await store.append(HISTORY_SEGMENTS_PATH, `${JSON.stringify(entry)}\n`, { durability });
}

/** Whether the project holds no records but `versions`' runs' (so a journal started now misses nothing). */
async function startsEmptyProject(
  project: Project,
  versions: readonly ArtifactRecord[],
): Promise<HistoryMeta> {
  const batch = new Map<string, number>();
  for (const record of versions) batch.set(record.runId, (batch.get(record.runId) ?? 0) + 1);
  for (const runId of await listRecordedRuns(project)) {
    const read = await readRecordLines(project, artifactRecordsPath(runId));
    const workspace = read.records.filter(isWorkspaceVersion).length + read.problems.length;
    if (workspace > (batch.get(runId) ?? 0)) {
      return {
        version: 1,
        complete: false,
        reason: 'the journal was started in a project that already had recorded runs',
      };
    }
  }
  return { version: 1, complete: true };
}

/** Writes meta.json (atomically: a reader sees the old or the new one). */
export async function writeMeta(
  store: ProjectStore,
  meta: HistoryMeta,
  durability: 'fsync' | 'none',
): Promise<void> {
  await store.replace(HISTORY_META_PATH, `${JSON.stringify(meta)}\n`, { durability });
}

function reasonOf(meta: { readonly reason?: string | undefined }): { reason?: string } {
  return meta.reason === undefined ? {} : { reason: meta.reason };
}

/** A project file's text, or undefined when it does not exist. */
export async function readOptional(project: ProjectRef, key: string): Promise<string | undefined> {
  return usingProject(project, ({ store }) => store.readText(key));
}
