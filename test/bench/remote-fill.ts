/**
 * Fills a catalog namespace with many runs in bulk for the fleet-read bench (test/bench/remote.ts): the keys and
 * bytes a push of each run would leave (its run folder, its records' path index lines, the run order index and the
 * history journal with its segments, heads and entries, rolled as a push rolls them), generated from one real
 * recorded run and inserted with large multi-row INSERTs (unnest of arrays), not pushed one run at a time.
 * Objects are left out: no read measured here opens another run's objects.
 */
import type { Pool } from 'pg';
import type { ArtifactRecord } from '../../src/artifacts/artifact-record.js';
import { artifactIdOf } from '../../src/artifacts/artifact-record.js';
import { indexFileOf, isVersionRecord } from '../../src/artifacts/store/artifact-index.js';
import {
  foldHeads,
  HISTORY_META_PATH,
  HISTORY_SEGMENT_BYTES,
  HISTORY_SEGMENTS_PATH,
  historyHeadsPath,
  historySegmentPath,
  isWorkspaceVersion,
} from '../../src/artifacts/store/history-journal.js';
import type { HistorySegment } from '../../src/artifacts/store/history-journal.js';
import { renderRecordLines } from '../../src/artifacts/store/record-lines.js';
import { renderRunStarts } from '../../src/artifacts/store/run-order-index.js';
import { parseRunId, RUN_ORDER_INDEX_PATH, runDir } from '../../src/project/index.js';

/** One recorded run to copy: its records and its run folder's other files (keys relative to its folder). */
export interface RunTemplate {
  readonly runId: string;
  readonly records: readonly ArtifactRecord[];
  readonly files: ReadonlyMap<string, Buffer>;
}

/** What a fill wrote. */
export interface Fill {
  readonly runs: number;
  readonly records: number;
  readonly files: number;
  readonly chunks: number;
  readonly bytes: number;
  readonly segments: number;
  readonly seconds: number;
}

/** Bytes of chunk rows per INSERT. */
const BATCH_BYTES = 8 * 1024 * 1024;
/** Versions of generated files: far above what the catalog's sequence hands out meanwhile. */
const VERSION_BASE = 1_000_000_000_000;

/** The paths of the background runs: the template's, moved below `shared/` (a bounded set edited over and over). */
function sharedPath(path: string): string {
  const slash = path.indexOf('/');
  return `${path.slice(0, slash)}/shared/${path.slice(slash + 1)}`;
}

/**
 * Writes `records` records' worth of runs `bg-000000`... copied from `template` into `namespace`, their times
 * before `before` (epoch ms), the newest last. Returns what it wrote.
 */
export async function fillCatalog(
  pool: Pool,
  namespace: string,
  template: RunTemplate,
  records: number,
  before: number,
): Promise<Fill> {
  const t0 = performance.now();
  const perRun = template.records.length;
  const runs = Math.ceil(records / perRun);
  let version = VERSION_BASE;
  const now = Date.now();
  // Files written whole, and files appended to (their size and version so far), as the push leaves them.
  const pendingFiles: [string, string, number][] = [];
  const appended = new Map<string, { version: number; size: number }>();
  let chunkKeys: string[] = [];
  let chunkVersions: string[] = [];
  let chunkStarts: string[] = [];
  let chunkBytes: Buffer[] = [];
  let batchBytes = 0;
  let files = 0;
  let chunks = 0;
  let bytes = 0;

  const flushChunks = async (): Promise<void> => {
    if (chunkKeys.length === 0) return;
    await pool.query(
      `INSERT INTO artifact_ingest_chunks (namespace, key, version, start, bytes)
       SELECT $1, k, v, s, b FROM unnest($2::text[], $3::bigint[], $4::bigint[], $5::bytea[]) AS t(k, v, s, b)`,
      [namespace, chunkKeys, chunkVersions, chunkStarts, chunkBytes],
    );
    chunkKeys = [];
    chunkVersions = [];
    chunkStarts = [];
    chunkBytes = [];
    batchBytes = 0;
  };
  const flushFiles = async (rows: readonly [string, string, number][]): Promise<void> => {
    for (let at = 0; at < rows.length; at += 20_000) {
      const batch = rows.slice(at, at + 20_000);
      await pool.query(
        `INSERT INTO artifact_ingest_files (namespace, key, version, size, modified_ms)
         SELECT $1, k, v, s, $5 FROM unnest($2::text[], $3::bigint[], $4::bigint[]) AS t(k, v, s)`,
        [namespace, batch.map((row) => row[0]), batch.map((row) => row[1]), batch.map((row) => row[2]), now],
      );
    }
  };
  const chunk = async (key: string, fileVersion: number, start: number, content: Buffer): Promise<void> => {
    chunkKeys.push(key);
    chunkVersions.push(String(fileVersion));
    chunkStarts.push(String(start));
    chunkBytes.push(content);
    batchBytes += content.byteLength;
    chunks += 1;
    bytes += content.byteLength;
    if (batchBytes >= BATCH_BYTES) await flushChunks();
  };
  /** A whole file (a replace). */
  const whole = async (key: string, content: Buffer): Promise<void> => {
    const fileVersion = ++version;
    pendingFiles.push([key, String(fileVersion), content.byteLength]);
    files += 1;
    if (pendingFiles.length >= 20_000) await flushFiles(pendingFiles.splice(0));
    if (content.byteLength > 0) await chunk(key, fileVersion, 0, content);
  };
  /** An append of whole lines. */
  const append = async (key: string, text: string): Promise<number> => {
    const content = Buffer.from(text, 'utf8');
    let file = appended.get(key);
    if (file === undefined) {
      file = { version: ++version, size: 0 };
      appended.set(key, file);
    }
    await chunk(key, file.version, file.size, content);
    file.size += content.byteLength;
    return file.size;
  };

  let seq = 0;
  let heads = new Map<string, ArtifactRecord>();
  let segmentRecords: ArtifactRecord[] = [];
  await whole(HISTORY_META_PATH, Buffer.from(`${JSON.stringify({ version: 1, complete: true })}\n`));
  const spacing = Math.max(1, Math.floor((before - Date.UTC(2026, 0, 1)) / (runs * perRun + 1)));
  for (let run = 0; run < runs; run++) {
    const runId = parseRunId(`bg-${String(run).padStart(6, '0')}`);
    const ids = new Map<string, string>();
    const runRecords = template.records.map((record, index): ArtifactRecord => {
      const path = sharedPath(record.path);
      const artifactId = artifactIdOf({
        runId,
        taskId: record.taskId,
        path,
        contentHash: record.contentHash,
      });
      ids.set(record.artifactId, artifactId);
      const { previous, ...metadata } = record.metadata as typeof record.metadata & { previous?: string };
      const mapped = previous === undefined ? undefined : ids.get(previous);
      return {
        ...record,
        artifactId,
        runId,
        path,
        createdAt: new Date(Date.UTC(2026, 0, 1) + (run * perRun + index) * spacing).toISOString(),
        metadata: { ...metadata, ...(mapped === undefined ? {} : { previous: mapped }) },
      };
    });
    // What a push writes: the run's files, its records' index lines (one append per path), the run order line, the
    // journal append (and roll), then its artifacts.jsonl.
    for (const [name, content] of template.files) {
      await whole(
        `${runDir(runId)}/${name}`,
        Buffer.from(content.toString('utf8').replaceAll(template.runId, runId), 'utf8'),
      );
    }
    const byPath = new Map<string, ArtifactRecord[]>();
    for (const record of runRecords.filter(isVersionRecord))
      byPath.set(record.path, [...(byPath.get(record.path) ?? []), record]);
    for (const [path, versions] of byPath) await append(indexFileOf(path), renderRecordLines(versions));
    const first = runRecords[0];
    if (first !== undefined)
      await append(RUN_ORDER_INDEX_PATH, renderRunStarts([{ runId, startedAt: first.createdAt }]));
    const journal = runRecords.filter(isWorkspaceVersion);
    segmentRecords.push(...journal);
    const size = await append(historySegmentPath(seq), renderRecordLines(journal));
    if (size >= HISTORY_SEGMENT_BYTES) {
      foldHeads(heads, segmentRecords);
      await whole(historyHeadsPath(seq), Buffer.from(renderRecordLines([...heads.values()]), 'utf8'));
      const times = segmentRecords.map((record) => Date.parse(record.createdAt));
      const entry: HistorySegment = {
        seq,
        records: segmentRecords.length,
        minAt: new Date(Math.min(...times)).toISOString(),
        maxAt: new Date(Math.max(...times)).toISOString(),
      };
      await append(HISTORY_SEGMENTS_PATH, `${JSON.stringify(entry)}\n`);
      heads = new Map(heads);
      segmentRecords = [];
      seq += 1;
    }
    await whole(`${runDir(runId)}/artifacts.jsonl`, Buffer.from(renderRecordLines(runRecords), 'utf8'));
  }
  await flushChunks();
  for (const [key, file] of appended) pendingFiles.push([key, String(file.version), file.size]);
  files += appended.size;
  await flushFiles(pendingFiles.splice(0));
  await pool.query(`SELECT setval('artifact_ingest_file_version', $1)`, [version + 1]);
  await pool.query('ANALYZE artifact_ingest_files');
  await pool.query('ANALYZE artifact_ingest_chunks');
  return {
    runs,
    records: runs * perRun,
    files,
    chunks,
    bytes,
    segments: seq,
    seconds: (performance.now() - t0) / 1000,
  };
}
