import { HISTORY_INDEX_DIR } from '../../project/index.js';
import { usingProject } from '../../store/index.js';
import type { FolderFill, ProjectRef } from '../../store/index.js';
import type { ArtifactRecord } from '../artifact-record.js';
import {
  foldHeads,
  HISTORY_META_PATH,
  HISTORY_SEGMENT_BYTES,
  HISTORY_SEGMENTS_PATH,
  historyHeadsPath,
  historySegmentPath,
  readHistoryMeta,
  readHistorySegments,
  readOptional,
} from './history-journal.js';
import type { HistorySegment } from './history-journal.js';
import { readRecordLines, renderRecordLines } from './record-lines.js';

/** Which workspace versions a query needs: every one it may include, in any run. */
export interface HistoryCut {
  /** Epoch ms: a heads file stands in for its records when every record it covers is earlier than this. */
  readonly headsBefore: number;
  /** Epoch ms: a later segment is read when its earliest record is at or before this. */
  readonly until: number;
}

/**
 * The workspace versions a query at `cut` may include, from the history journal: the newest heads file whose
 * records are all before `cut.headsBefore` (the newest version per path of everything up to it), then every
 * later segment that starts at or before `cut.until`, and every segment not committed yet. The caller still filters by time and
 * run. Undefined when the journal cannot answer exactly (not known complete, or an unreadable line): the caller
 * then reads every run.
 */
export async function readHistoryCut(
  project: ProjectRef,
  cut: HistoryCut,
): Promise<ArtifactRecord[] | undefined> {
  return usingProject(project, (opened) => readCut(opened, cut));
}

async function readCut(project: ProjectRef, cut: HistoryCut): Promise<ArtifactRecord[] | undefined> {
  const meta = await readHistoryMeta(project);
  if (meta?.complete !== true) return undefined;
  const { segments, ordered } = await readHistorySegments(project);
  if (!ordered) return undefined;
  let heads = -1;
  let cumulativeMax = -Infinity;
  segments.forEach((segment, index) => {
    cumulativeMax = Math.max(cumulativeMax, Date.parse(segment.maxAt));
    if (cumulativeMax < cut.headsBefore) heads = index;
  });
  const files: string[] = [];
  if (heads >= 0) files.push(historyHeadsPath(heads));
  for (const segment of segments.slice(heads + 1))
    if (Date.parse(segment.minAt) <= cut.until) files.push(historySegmentPath(segment.seq));
  const records: ArtifactRecord[] = [];
  for (const file of files) {
    const text = await readOptional(project, file);
    // A committed segment or heads file that is gone: the journal cannot answer.
    if (text === undefined) return undefined;
    const read = parseJournalLines(text);
    if (read === undefined) return undefined;
    records.push(...read);
  }
  // Every segment after the committed ones, always: the open one, and one a lost commit line left behind.
  for (let seq = segments.length; ; seq++) {
    const text = await readOptional(project, historySegmentPath(seq));
    if (text === undefined) break;
    const read = parseJournalLines(text);
    if (read === undefined) return undefined;
    records.push(...read);
  }
  return records;
}

/**
 * Parses journal lines with a shape check of the fields a checkout uses instead of the full schema (the journal
 * is written from validated records, and full `verify` validates every line): a query reads whole segments, and
 * the schema check was most of its cost. Undefined on any line that is not whole and record-shaped.
 */
function parseJournalLines(text: string): ArtifactRecord[] | undefined {
  const lines = text.split('\n');
  if (lines.pop() !== '') return undefined;
  const records: ArtifactRecord[] = [];
  for (const line of lines) {
    if (line === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      return undefined;
    }
    if (!isRecordShaped(value)) return undefined;
    records.push(value);
  }
  return records;
}

async function exists(project: ProjectRef, key: string): Promise<boolean> {
  return usingProject(project, async ({ store }) => (await store.info(key)) !== undefined);
}

function isRecordShaped(value: unknown): value is ArtifactRecord {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  const metadata = record['metadata'];
  return (
    ['artifactId', 'runId', 'taskId', 'agentId', 'type', 'path', 'contentHash', 'createdAt'].every(
      (key) => typeof record[key] === 'string',
    ) &&
    !Number.isNaN(Date.parse(record['createdAt'] as string)) &&
    typeof metadata === 'object' &&
    metadata !== null &&
    typeof (metadata as Record<string, unknown>)['bytes'] === 'number'
  );
}

/** Every version record the journal holds (committed and open segments), or undefined when it is not complete. */
export async function readWholeHistory(project: ProjectRef): Promise<
  | {
      readonly records: readonly ArtifactRecord[];
      readonly problems: readonly { readonly file: string; readonly message: string }[];
    }
  | { readonly incomplete: string }
> {
  return usingProject(project, readWhole);
}

async function readWhole(project: ProjectRef): ReturnType<typeof readWholeHistory> {
  const meta = await readHistoryMeta(project);
  if (meta === undefined) return { incomplete: `${HISTORY_INDEX_DIR}/meta.json is missing or unreadable` };
  if (!meta.complete) return { incomplete: meta.reason ?? 'meta.json says it is not complete' };
  const { segments, ordered } = await readHistorySegments(project);
  if (!ordered) return { incomplete: `${HISTORY_SEGMENTS_PATH} does not list segments 0, 1, 2 ... in order` };
  const records: ArtifactRecord[] = [];
  const problems: { file: string; message: string }[] = [];
  for (let seq = 0; seq <= segments.length || (await exists(project, historySegmentPath(seq))); seq++) {
    const read = await readRecordLines(project, historySegmentPath(seq));
    records.push(...read.records);
    problems.push(...read.problems);
  }
  return { records, problems };
}

/**
 * Writes a whole journal of `versions` (workspace versions, already in the order they should be appended) into the
 * fill of a folder replace: segments of about {@link HISTORY_SEGMENT_BYTES}, each full one with its heads and its entry,
 * the last one open, and meta.json saying it is complete.
 */
export async function writeHistoryJournal(
  files: FolderFill,
  versions: readonly ArtifactRecord[],
): Promise<number> {
  const heads = new Map<string, ArtifactRecord>();
  const entries: HistorySegment[] = [];
  let start = 0;
  let bytes = 0;
  for (let index = 0; index <= versions.length; index++) {
    const record = versions[index];
    if (record !== undefined) bytes += Buffer.byteLength(renderRecordLines([record]));
    if (record !== undefined && bytes < HISTORY_SEGMENT_BYTES) continue;
    // Past the size (or at the end): this segment is full and is committed, the next one opens.
    const segment = versions.slice(start, index + 1);
    const seq = entries.length;
    await files.write(historySegmentPath(seq), renderRecordLines(segment));
    if (record === undefined) break;
    foldHeads(heads, segment);
    await files.write(historyHeadsPath(seq), renderRecordLines([...heads.values()]));
    const times = segment.map((version) => Date.parse(version.createdAt));
    entries.push({
      seq,
      records: segment.length,
      minAt: new Date(Math.min(...times)).toISOString(),
      maxAt: new Date(Math.max(...times)).toISOString(),
    });
    start = index + 1;
    bytes = 0;
  }
  await files.write(HISTORY_SEGMENTS_PATH, entries.map((entry) => `${JSON.stringify(entry)}\n`).join(''));
  await files.write(HISTORY_META_PATH, `${JSON.stringify({ version: 1, complete: true })}\n`);
  return entries.length + 1;
}
