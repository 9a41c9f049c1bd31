import { artifactIdOf } from '../artifact-record.js';
import type { ArtifactRecord, ArtifactSource } from '../artifact-record.js';
import { appendArtifactRecords } from '../store/index.js';
import { appendToIndex, appendToRunIndexes, latestPathVersion } from '../store/index.js';
import { classifyPath } from './classify-path.js';
import { countLineChanges } from './count-line-changes.js';
import type { LineChanges } from './count-line-changes.js';
import { openObjectStore } from '../store/index.js';
import type { ObjectStore } from '../store/index.js';
import { traceContentSchema, tracePathOf } from '../trace-content.js';
import type { TraceContent } from '../trace-content.js';
import { redactJson } from '../../project/index.js';
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
   * False when the bytes were already on disk (an ingest's `unchanged` block): recorded only when the path's
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
  /** `unchanged` when the file already held these bytes. */
  readonly status: 'written' | 'unchanged';
}

/**
 * The file versions one ingest placed, ready for {@link ArtifactRecorder.recordVersions}: a file the ingest
 * found `unchanged` is recorded only when the path's last recorded version differs (`changed: false`).
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
 * Opens the recorder of a project. Calls on one recorder run one at a time, so `previous` links are exact
 * within a process; two processes recording the same path at once may both link to the same previous version.
 */
export async function openArtifactRecorder(
  projectDir: string,
  options: ArtifactRecorderOptions = {},
): Promise<ArtifactRecorder> {
  const durability = options.durability ?? 'fsync';
  const store = await openObjectStore(projectDir, { durability });
  const now = options.now ?? (() => new Date());
  let queue: Promise<unknown> = Promise.resolve();
  const serialized = <T>(work: () => Promise<T>): Promise<T> => {
    const next = queue.then(work, work);
    queue = next.catch(() => undefined);
    return next;
  };

  const recordVersion = async (input: ArtifactVersionInput): Promise<ArtifactRecord | undefined> => {
    const { hash } = await store.put(input.bytes);
    const artifactId = artifactIdOf({
      runId: input.runId,
      taskId: input.taskId,
      path: input.path,
      contentHash: hash,
    });
    const latest = await latestPathVersion(projectDir, input.path);
    if (latest !== undefined && latest.artifactId === artifactId) return undefined;
    if (latest !== undefined && input.changed === false && latest.contentHash === hash) return undefined;
    const lines = await linesAgainst(store, latest?.contentHash, input.bytes);
    const pathClass = classifyPath(input.path);
    const language =
      input.language !== undefined && input.language !== '' ? input.language : pathClass.language;
    const record: ArtifactRecord = {
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
    await appendArtifactRecords(projectDir, input.runId, [record], durability);
    await appendToIndex(projectDir, [record], durability);
    await appendToRunIndexes(projectDir, [record], durability);
    return record;
  };

  return {
    recordVersions: (inputs) =>
      serialized(async () => {
        const records: ArtifactRecord[] = [];
        for (const input of inputs) {
          const record = await recordVersion(input);
          if (record !== undefined) records.push(record);
        }
        return records;
      }),
    recordTrace: (input) =>
      serialized(async () => {
        // Error texts, problems and messages are redacted; the trace holds the prompt's hash, never the prompt.
        const trace = redactJson(traceContentSchema.parse(input.trace));
        const bytes = new TextEncoder().encode(`${JSON.stringify(trace, null, 2)}\n`);
        const { hash } = await store.put(bytes);
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
        await appendArtifactRecords(projectDir, input.runId, [record], durability);
        await appendToRunIndexes(projectDir, [record], durability);
        return record;
      }),
    close: async () => {
      await queue;
      await store.close();
    },
  };
}

/** Line changes from the previous version's content; binary content (not UTF-8) counts no lines. */
async function linesAgainst(
  store: ObjectStore,
  previousHash: string | undefined,
  bytes: Uint8Array,
): Promise<LineChanges> {
  const next = decodeText(bytes);
  if (next === undefined) return { linesAdded: 0, linesRemoved: 0, method: 'diff' };
  if (previousHash === undefined) return countLineChanges(null, next);
  // A missing or corrupt previous object makes the counts unknowable: count against nothing, verify reports it.
  const previousBytes = await store.get(previousHash).catch(() => undefined);
  const previous = previousBytes === undefined ? undefined : decodeText(previousBytes);
  if (previous === undefined) return countLineChanges(null, next);
  return countLineChanges(previous, next);
}

function decodeText(bytes: Uint8Array): string | undefined {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}
