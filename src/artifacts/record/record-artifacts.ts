import { isUtf8 } from 'node:buffer';
import { artifactIdOf } from '../artifact-record.js';
import type { ArtifactRecord, ArtifactSource } from '../artifact-record.js';
import { artifactRecordSchema } from '../artifact-record.js';
import { contentHashOf } from '../../store/index.js';
import type { ProjectRef } from '../../store/index.js';
import { appendArtifactRecords, renderRecordLines } from '../store/index.js';
import {
  appendToIndex,
  appendToRunIndexes,
  newestVersionLine,
  openPathVersionCache,
  openRecordRoots,
} from '../store/index.js';
import type { NewestVersionLine } from '../store/index.js';
import { recentContents } from './recent-contents.js';
import type { RecentContents } from './recent-contents.js';
import { classifyPath } from './classify-path.js';
import { countLineChanges } from './count-line-changes.js';
import type { LineChanges } from './count-line-changes.js';
import type { ObjectStore } from '../store/index.js';
import { traceContentSchema, tracePathOf } from '../trace-content.js';
import type { TraceContent } from '../trace-content.js';
import { parseRunId, redactJson } from '../../project/index.js';
import type { NodeId, RunId } from '../../project/index.js';

/** One version of a file or document to record: its bytes and its place. */
export interface ArtifactVersionInput {
  readonly runId: RunId;
  /** The node (or workflow step) id. */
  readonly taskId: NodeId;
  readonly agentId: string;
  /** `message` for a node's document; otherwise `file` or `design` is chosen from the path's media type. */
  readonly kind: 'file' | 'message';
  /** Project-relative path, such as `workspace/src/a.ts` or `docs/plan.md`. */
  readonly path: string;
  readonly bytes: Uint8Array;
  /** The fence's lang; the file extension's language is used when absent or empty. */
  readonly language?: string;
  readonly source: ArtifactSource;
  /** The contract type, for a contract submission (`source: 'submit'`). */
  readonly contract?: string;
  /**
   * False when the bytes were already on disk (an ingest's block skipped as `unchanged`): recorded only when the path's
   * last recorded version holds other bytes (or there is none), so the records match the workspace.
   */
  readonly changed?: boolean;
}

/** A file an ingest left on disk, as `IngestResult.contents` lists it (the shape, so artifacts need not import ingest). */
export interface PlacedFile {
  /** `workspace/<path>`. */
  readonly workspacePath: string;
  readonly lang: string;
  readonly bytes: Uint8Array;
  /** `skipped` (reason `unchanged`) when the file already held these bytes. */
  readonly status: 'written' | 'skipped';
}

/**
 * The file versions one ingest placed, ready for {@link ArtifactRecorder.recordVersions}: a file the ingest
 * skipped as `unchanged` is recorded only when the path's last recorded version differs (`changed: false`).
 */
export function versionsOfIngested(
  files: readonly PlacedFile[],
  place: { readonly runId: RunId; readonly taskId: NodeId; readonly agentId: string },
): ArtifactVersionInput[] {
  return files.map((file) => ({
    ...place,
    kind: 'file',
    path: file.workspacePath,
    bytes: file.bytes,
    language: file.lang,
    source: 'ingest',
    changed: file.status === 'written',
  }));
}

/** One node execution to record as a `trace` artifact. */
export interface TraceInput {
  readonly runId: RunId;
  readonly taskId: NodeId;
  readonly agentId: string;
  readonly trace: TraceContent;
}

/** Options of {@link openArtifactRecorder}. */
export interface ArtifactRecorderOptions {
  /** Clock for `createdAt`, for tests. */
  readonly now?: () => Date;
  /** Object and record-line durability: `fsync` (default) or `none` (generated data, benchmarks). */
  readonly durability?: 'fsync' | 'none';
}

/** Records artifacts of a project: stores contents, links versions, appends records and the path index. */
export interface ArtifactRecorder {
  /**
   * Records versions in order and returns the records written. A version whose id equals the path's last
   * recorded version (the same content re-ingested at the same place) is not recorded again: idempotent.
   */
  recordVersions(inputs: readonly ArtifactVersionInput[]): Promise<ArtifactRecord[]>;
  /** Records one node execution as a `trace` artifact. */
  recordTrace(input: TraceInput): Promise<ArtifactRecord>;
  /** Waits for recording in flight and releases the object store. */
  close(): Promise<void>;
}

/**
 * Opens the recorder of a project (a folder path, its `.agent/` the store, or a `Project` and its store). Calls on
 * one recorder run one at a time, so `previous` links are exact within a process; two processes recording the
 * same path at once may both link to the same previous version. One `recordVersions` call stores its new objects
 * through one write batch, then appends its records with one append (and one fsync) per run's artifacts.jsonl
 * and per path index file, through a session of the store that keeps their folders open.
 */
export async function openArtifactRecorder(
  project: ProjectRef,
  options: ArtifactRecorderOptions = {},
): Promise<ArtifactRecorder> {
  const durability = options.durability ?? 'fsync';
  // A session kept open per recorder: each append walks from a kept folder instead of opening the project again.
  const roots = await openRecordRoots(project);
  const recording = roots.project;
  const store = await recording.store.openObjects({ durability }).catch(async (error: unknown) => {
    await roots.close();
    throw error;
  });
  const versions = openPathVersionCache(recording);
  const contents = recentContents();
  const now = options.now ?? (() => new Date());
  // Objects this recorder stored or found stored, trusted for its lifetime: objects are never rewritten in place,
  // so content recorded again (most of an agent's files) costs no open, read or compare.
  const stored = new Set<string>();
  /** The hashes of `contents`, each stored (durable under fsync) unless this recorder already stored it. */
  const storeAll = async (contents: readonly Uint8Array[]): Promise<string[]> => {
    const hashes = contents.map((bytes) => contentHashOf(bytes));
    const fresh = contents.filter((_, index) => !stored.has(hashes[index] ?? ''));
    if (fresh.length > 0) {
      const puts = await store.putAll(fresh);
      if (stored.size + puts.length > STORED_HASHES) stored.clear();
      for (const put of puts) stored.add(put.hash);
    }
    return hashes;
  };
  let queue: Promise<unknown> = Promise.resolve();
  const serialized = <T>(work: () => Promise<T>): Promise<T> => {
    const next = queue.then(work, work);
    queue = next.catch(() => undefined);
    return next;
  };

  /** The record of `input` against `latest` (the path's newest version), or undefined when it is not recorded. */
  const versionRecord = async (
    input: ArtifactVersionInput,
    hash: string,
    latest: ArtifactRecord | undefined,
  ): Promise<ArtifactRecord | undefined> => {
    const artifactId = artifactIdOf({
      runId: input.runId,
      taskId: input.taskId,
      path: input.path,
      contentHash: hash,
    });
    if (latest !== undefined && latest.artifactId === artifactId) return undefined;
    if (latest !== undefined && input.changed === false && latest.contentHash === hash) return undefined;
    const lines = await linesAgainst(store, contents, latest?.contentHash, input.bytes);
    const pathClass = classifyPath(input.path);
    const language =
      input.language !== undefined && input.language !== '' ? input.language : pathClass.language;
    return {
      artifactId,
      runId: input.runId,
      taskId: input.taskId,
      agentId: input.agentId,
      type: input.kind === 'message' ? 'message' : pathClass.design ? 'design' : 'file',
      path: input.path,
      contentHash: hash,
      createdAt: now().toISOString(),
      metadata: {
        ...(language === undefined ? {} : { language }),
        bytes: input.bytes.byteLength,
        linesAdded: lines.linesAdded,
        linesRemoved: lines.linesRemoved,
        // Absent means a minimal diff counted the lines, as it did for every record before the fallback.
        ...(lines.method === 'multiset' ? { lineCount: lines.method } : {}),
        ...(latest === undefined ? {} : { previous: latest.artifactId }),
        source: input.source,
        ...(input.contract === undefined ? {} : { contract: input.contract }),
      },
    };
  };

  const recordBatch = async (inputs: readonly ArtifactVersionInput[]): Promise<ArtifactRecord[]> => {
    if (inputs.length === 0) return [];
    // A run id names a folder: checked before anything is stored (appendArtifactRecords checks it again).
    for (const input of inputs) parseRunId(input.runId);
    // Crash order: every object is durable before a record names it, and records before the index lists them.
    const hashes = await storeAll(inputs.map((input) => input.bytes));
    // A path's newest version as the index will read once this batch is appended: what the cache knew, then
    // this batch's earlier records in line order, newest by createdAt (of equal times the later line).
    const batchNewest = new Map<string, NewestVersionLine | undefined>();
    const appendedBytes = new Map<string, number>();
    const records: ArtifactRecord[] = [];
    for (const [index, input] of inputs.entries()) {
      const hash = hashes[index] ?? contentHashOf(input.bytes);
      contents.remember(hash, input.bytes);
      let newest = batchNewest.get(input.path);
      if (!batchNewest.has(input.path)) {
        const cached = await versions.latest(input.path);
        newest = cached === undefined ? undefined : { value: cached, time: Date.parse(cached.createdAt) };
      }
      const record = await versionRecord(input, hash, newest?.value as ArtifactRecord | undefined);
      if (record === undefined) {
        batchNewest.set(input.path, newest);
        continue;
      }
      records.push(record);
      // The line as the index holds it (redacted, as every reader sees it), to link the next version exactly.
      const line = renderRecordLines([record]);
      appendedBytes.set(input.path, (appendedBytes.get(input.path) ?? 0) + Buffer.byteLength(line));
      const indexed = newestVersionLine([line.slice(0, -1)], input.path, newest);
      batchNewest.set(
        input.path,
        indexed === undefined || indexed === newest
          ? newest
          : { value: artifactRecordSchema.parse(indexed.value), time: indexed.time },
      );
    }
    for (const [runId, ofRun] of byRun(records)) {
      await appendArtifactRecords(recording, runId, ofRun, durability);
    }
    await appendToIndex(recording, records, durability);
    await appendToRunIndexes(recording, records, durability);
    for (const [path, bytes] of appendedBytes) versions.appended(path, bytes, batchNewest.get(path));
    return records;
  };

  return {
    recordVersions: (inputs) => serialized(() => recordBatch(inputs)),
    recordTrace: (input) =>
      serialized(async () => {
        // Error texts, problems and messages are redacted; the trace holds the prompt's hash, never the prompt.
        const trace = redactJson(traceContentSchema.parse(input.trace));
        const bytes = new TextEncoder().encode(`${JSON.stringify(trace, null, 2)}\n`);
        const [hash = contentHashOf(bytes)] = await storeAll([bytes]);
        const path = tracePathOf(input.runId, input.taskId);
        const record: ArtifactRecord = {
          artifactId: artifactIdOf({ runId: input.runId, taskId: input.taskId, path, contentHash: hash }),
          runId: input.runId,
          taskId: input.taskId,
          agentId: input.agentId,
          type: 'trace',
          path,
          contentHash: hash,
          createdAt: now().toISOString(),
          // A trace is not a version of a file: no previous, no line changes.
          metadata: {
            language: 'json',
            bytes: bytes.byteLength,
            linesAdded: 0,
            linesRemoved: 0,
            source: 'runtime',
          },
        };
        await appendArtifactRecords(recording, input.runId, [record], durability);
        await appendToRunIndexes(recording, [record], durability);
        return record;
      }),
    close: async () => {
      await queue;
      await Promise.all([store.close(), roots.close()]);
    },
  };
}

/** Hashes a recorder remembers as stored (about 100 bytes each), forgotten all at once past this many. */
const STORED_HASHES = 100_000;

/** Records grouped by run, each group in batch order: one append per run's artifacts.jsonl. */
function byRun(records: readonly ArtifactRecord[]): Map<RunId, ArtifactRecord[]> {
  const groups = new Map<RunId, ArtifactRecord[]>();
  for (const record of records) {
    const group = groups.get(record.runId);
    if (group === undefined) groups.set(record.runId, [record]);
    else group.push(record);
  }
  return groups;
}

/** Line changes from the previous version's content; binary content (not UTF-8) counts no lines. */
async function linesAgainst(
  store: ObjectStore,
  contents: RecentContents,
  previousHash: string | undefined,
  bytes: Uint8Array,
): Promise<LineChanges> {
  // A missing or corrupt previous object makes the counts unknowable: count against nothing, verify reports it.
  const previousBytes =
    previousHash === undefined
      ? undefined
      : (contents.get(previousHash) ?? (await store.get(previousHash).catch(() => undefined)));
  const previous = previousBytes === undefined ? undefined : decodeText(previousBytes);
  // Against nothing, every line is added: counted on the bytes, so a 16 MiB document is not decoded for it.
  if (previous === undefined) return { linesAdded: linesOfText(bytes), linesRemoved: 0, method: 'diff' };
  const next = decodeText(bytes);
  if (next === undefined) return { linesAdded: 0, linesRemoved: 0, method: 'diff' };
  return countLineChanges(previous, next);
}

/**
 * The lines of UTF-8 text as `countLineChanges(null, text)` counts them (a leading BOM is no character, a last
 * line without a newline is a line), without decoding it; 0 for content that is not UTF-8 (binary).
 */
function linesOfText(bytes: Uint8Array): number {
  if (!isUtf8(bytes)) return 0;
  const start = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  let lines = 0;
  for (let at = bytes.indexOf(0x0a, start); at !== -1; at = bytes.indexOf(0x0a, at + 1)) lines++;
  return bytes.byteLength > start && bytes[bytes.byteLength - 1] !== 0x0a ? lines + 1 : lines;
}

function decodeText(bytes: Uint8Array): string | undefined {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}
