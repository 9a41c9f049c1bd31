import {
  artifactRecordsPath,
  CodedError,
  CONTRACT_ARTIFACTS_DIR,
  runDir,
  RUNS_DIR,
  runEventsPath,
  mapLimit,
  AGENT_DIR,
} from '../../project/index.js';
import type { RunId } from '../../project/index.js';
import { storeLockSlot } from '../../store/index.js';
import type { ObjectStore, Project, ProjectStore } from '../../store/index.js';
import { acquireShortLock } from '../../workspace/index.js';
import type { ArtifactRecord } from '../artifact-record.js';
import { appendToIndex, appendToRunIndexes, isVersionRecord, readPathVersions } from '../store/index.js';
import { readRunRecords, referencedObjects, runFolderEntries } from './bundle-sources.js';
import { checkRecordPaths } from './check-record-paths.js';
import { parseTrace } from './read-bundle-archive.js';

/** Why a run could not be copied between two stores. */
export type RunCopyErrorCode =
  /** The source has no such run. */
  | 'unknown_run'
  /** The target holds a different run under the same id (its records or events are not a prefix of the source's). */
  | 'run_diverged'
  /** Another copy of the same run into the same store holds its lock. */
  | 'copy_busy'
  /** The source's records cannot be read, belong to another run, or name a path no writer may write (pull). */
  | 'invalid_records';

/** A run that could not be copied, with the run and what to do in the message. */
export class RunCopyError extends CodedError<RunCopyErrorCode> {
  override readonly name = 'RunCopyError';
  readonly runId: string;

  constructor(code: RunCopyErrorCode, runId: string, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.runId = runId;
  }
}

/** How {@link copyRun} copies. */
export interface CopyRunOptions {
  /**
   * `push`: from this machine's store to the remote. `pull`: from the remote into this machine's store, the
   * source then untrusted: every record's paths are judged as an import judges a bundle's.
   */
  readonly direction: 'push' | 'pull';
  /** How long to wait for another copy of the same run into the same store (default 30 s). */
  readonly lockWaitMs?: number;
  /** Told what is being copied, for progress on long copies. */
  readonly onProgress?: (step: string) => void;
}

/** What {@link copyRun} did. */
export interface RunCopy {
  readonly runId: RunId;
  /** Run files written into the target (appended to or replaced). */
  readonly filesWritten: number;
  /** Bytes written into the target's run files. */
  readonly bytesWritten: number;
  /** Objects the target did not have and now has. */
  readonly objectsStored: number;
  /** Records appended to the target's artifacts.jsonl. */
  readonly recordsCopied: number;
  /** Run files the source no longer has (a transition log a finished run folded in), removed from the target. */
  readonly filesRemoved: number;
}

/** Append-only logs: the target's copy must be a prefix of the source's, or the two are different runs. */
const APPEND_ONLY = new Set(['artifacts.jsonl', 'events.jsonl']);
/** Bytes at the end of the target's copy compared with the source's at the same place. */
const OVERLAP_BYTES = 256;

/**
 * Copies what the target store lacks of run `runId` from `source` (push and pull: spec storage.md Part 2), so that
 * a copy killed at any point and run again ends with everything in the target exactly once:
 * 1. the objects the new records reference (read verified by hash: a corrupt one stops the copy before any record
 *    is written), before the records that name them;
 * 2. the indexes (path index by count per version, which makes it idempotent; history and run order tolerate a
 *    line twice);
 * 3. the run's other files (logs by their new lines, other files replaced when they differ, files the source no
 *    longer has removed) and its contract artifacts;
 * 4. last, the new lines of its artifacts.jsonl: the step that makes the records visible.
 * One copy per run and target at a time (a short lock in the target).
 */
export async function copyRun(
  source: Project,
  target: Project,
  runId: RunId,
  options: CopyRunOptions,
): Promise<RunCopy> {
  // In .agent itself, not in the run folder: a refused copy must leave no folder of the run behind.
  const lockKey = `${AGENT_DIR}/copy-${runId}.lock`;
  const attempt = await acquireShortLock(storeLockSlot(target.store, lockKey), {
    waitMs: options.lockWaitMs ?? 30_000,
  });
  if (!attempt.acquired) {
    throw new RunCopyError(
      'copy_busy',
      runId,
      `another copy of run ${runId} into ${target.store.location} is under way (${attempt.holder}); wait for it, or run the command again`,
    );
  }
  try {
    return await copyUnderLock(source, target, runId, options);
  } finally {
    await attempt.lock.release();
  }
}

async function copyUnderLock(
  source: Project,
  target: Project,
  runId: RunId,
  options: CopyRunOptions,
): Promise<RunCopy> {
  const progress = options.onProgress ?? (() => undefined);
  const sourceKeys = await runKeys(source.store, runId);
  if (sourceKeys === undefined) {
    throw new RunCopyError('unknown_run', runId, `run ${runId} is not in ${source.store.location}`);
  }
  const recordsKey = artifactRecordsPath(runId);
  const tail = await newLines(source.store, target.store, recordsKey, runId, true);
  const allRecords = tail.sourceText === undefined ? [] : recordsIn(tail.sourceText, recordsKey, runId);
  const tailRecords = tail.text === '' ? [] : recordsIn(tail.text, recordsKey, runId);
  if (options.direction === 'pull') await judgePaths(source.store, runId, tailRecords);

  progress(`objects of run ${runId}`);
  const objectsStored = await copyObjects(
    source.store,
    target.store,
    referencedObjects(tailRecords),
    options.direction === 'pull',
  );

  progress(`indexes of run ${runId}`);
  await indexNewRecords(target, allRecords, tailRecords);

  progress(`files of run ${runId}`);
  let filesWritten = 0;
  let bytesWritten = 0;
  // The run's files are independent of each other: copied OBJECT_CONCURRENCY at a time (a round trip each to a remote).
  const copied = await mapLimit(
    sourceKeys.filter((key) => key !== recordsKey),
    OBJECT_CONCURRENCY,
    (key) => copyFile(source.store, target.store, key, runId),
  );
  for (const written of copied) {
    if (written > 0) {
      filesWritten += 1;
      bytesWritten += written;
    }
  }
  const filesRemoved = await removeGone(target.store, runId, new Set(sourceKeys));

  if (tail.text !== '') {
    await target.store.append(recordsKey, tail.text);
    filesWritten += 1;
    bytesWritten += Buffer.byteLength(tail.text);
  }
  return {
    runId,
    filesWritten,
    bytesWritten,
    objectsStored,
    recordsCopied: tailRecords.length,
    filesRemoved,
  };
}

/**
 * Every key of the run in `store`: its folder's files (bookkeeping left out: locks, temp files) and its contract
 * artifacts, sorted; undefined when the run folder does not exist.
 */
async function runKeys(store: ProjectStore, runId: RunId): Promise<string[] | undefined> {
  const runs = await store.list(RUNS_DIR);
  if (!runs.some((entry) => entry.name === runId && entry.kind === 'folder')) return undefined;
  const keys: string[] = [];
  const walk = async (root: string): Promise<void> => {
    for await (const entry of runFolderEntries(root, (folder) => store.list(folder))) {
      if (entry.kind === 'file') keys.push(entry.path);
      else if (entry.kind === 'other') {
        throw new RunCopyError(
          'invalid_records',
          runId,
          `${entry.path} in ${store.location} is neither a file nor a folder (a symlink or a device); remove it, then copy the run again`,
        );
      }
    }
  };
  await walk(runDir(runId));
  if (
    (await store.list(CONTRACT_ARTIFACTS_DIR)).some(
      (entry) => entry.name === runId && entry.kind === 'folder',
    )
  ) {
    await walk(`${CONTRACT_ARTIFACTS_DIR}/${runId}`);
  }
  return keys.sort();
}

/** The whole lines the source's log `key` has beyond the target's copy, after checking the copy is a prefix. */
async function newLines(
  source: ProjectStore,
  target: ProjectStore,
  key: string,
  runId: RunId,
  appendOnly: boolean,
): Promise<{ readonly text: string; readonly sourceText: string | undefined; readonly replace: boolean }> {
  const sourceBytes = await source.read(key);
  if (sourceBytes === undefined) return { text: '', sourceText: undefined, replace: false };
  const sourceText = Buffer.from(sourceBytes).toString('utf8');
  const targetSize = (await target.info(key))?.size ?? 0;
  const prefixHolds =
    targetSize <= sourceBytes.byteLength &&
    (targetSize === 0 ||
      Buffer.from(
        (await target.readFrom(key, Math.max(0, targetSize - OVERLAP_BYTES), OVERLAP_BYTES))?.bytes ?? [],
      ).equals(Buffer.from(sourceBytes.subarray(Math.max(0, targetSize - OVERLAP_BYTES), targetSize))));
  if (!prefixHolds) {
    if (!appendOnly) return { text: sourceText, sourceText, replace: true };
    throw new RunCopyError(
      'run_diverged',
      runId,
      `run ${runId} in ${target.location} is not the run in ${source.location}: its ${key.slice(key.lastIndexOf('/') + 1)} differs (two machines made runs with the same id?); nothing of it was copied`,
    );
  }
  // Up to the last newline: a line still being written (or cut by a kill) waits for the next copy.
  const rest = Buffer.from(sourceBytes.subarray(targetSize));
  const end = rest.lastIndexOf(0x0a) + 1;
  return { text: rest.subarray(0, end).toString('utf8'), sourceText, replace: false };
}

/** The run's records in `text` (its artifacts.jsonl; a cut last line skipped); refuses another run's record. */
function recordsIn(text: string, key: string, runId: RunId): ArtifactRecord[] {
  const read = readRunRecords(runId, key, text);
  switch (read.status) {
    case 'ok':
      return read.records;
    case 'invalid_records':
      throw new RunCopyError(
        'invalid_records',
        runId,
        `${read.message}; the run cannot be copied until it is fixed`,
      );
    case 'foreign_record':
      throw new RunCopyError('invalid_records', runId, `${read.message}; nothing of the run was copied`);
  }
}

/** Pull: every path a new record (or its trace) names must be one a writer may write, as for an import. */
async function judgePaths(
  source: ProjectStore,
  runId: RunId,
  records: readonly ArtifactRecord[],
): Promise<void> {
  const objects = await source.openObjects({ readOnly: true });
  try {
    await checkRecordPaths(
      runId,
      records,
      async (hash) => parseTrace(await objects.get(hash)),
      'the remote holds a record no writer makes: nothing of the run was pulled',
    );
  } catch (error) {
    if (error instanceof RunCopyError) throw error;
    if (error instanceof CodedError && error.code === 'unsafe_record_path') {
      throw new RunCopyError('invalid_records', runId, error.message, { cause: error });
    }
    throw error;
  }
}

/** Objects looked up, read or stored at once, and how many are held in memory between a read and their store. */
const OBJECT_CONCURRENCY = 8;
const OBJECT_BATCH = 64;

/**
 * Stores in the target each of `hashes` it lacks, read from the source verified by hash ({@link OBJECT_CONCURRENCY}
 * at a time: each a round trip to a remote) and stored with one `putAll` per batch, which leaves an object already
 * there alone. `lookFirst` (pull): the target is asked first, so an object it has is never read from the remote;
 * a push reads them from local files and lets the remote's `putAll` look each up once (D117).
 */
async function copyObjects(
  source: ProjectStore,
  target: ProjectStore,
  hashes: readonly string[],
  lookFirst: boolean,
): Promise<number> {
  if (hashes.length === 0) return 0;
  const from = await source.openObjects({ readOnly: true });
  let into: ObjectStore | undefined;
  let stored = 0;
  try {
    const objects = await target.openObjects();
    into = objects;
    for (let at = 0; at < hashes.length; at += OBJECT_BATCH) {
      const batch = hashes.slice(at, at + OBJECT_BATCH);
      const there = lookFirst ? await mapLimit(batch, OBJECT_CONCURRENCY, (hash) => objects.has(hash)) : [];
      const missing = batch.filter((_, index) => there[index] !== true);
      // get re-hashes what it read: a corrupt source object stops the copy here, before any record.
      const contents = await mapLimit(missing, OBJECT_CONCURRENCY, (hash) => from.get(hash));
      for (const result of await objects.putAll(contents)) if (result.stored) stored += 1;
    }
  } finally {
    await from.close();
    await into?.close();
  }
  return stored;
}

/**
 * Adds the new records to the target's indexes: versions to the path index only where the index holds fewer of
 * a version than the run's records (so a copy run again adds none twice), and to the run order and history
 * (which read a line twice as once).
 */
async function indexNewRecords(
  target: Project,
  allRecords: readonly ArtifactRecord[],
  tailRecords: readonly ArtifactRecord[],
): Promise<void> {
  if (tailRecords.length === 0) return;
  const paths = new Set(tailRecords.filter(isVersionRecord).map((record) => record.path));
  const missing: ArtifactRecord[] = [];
  const pathList = [...paths];
  const versions = await mapLimit(pathList, OBJECT_CONCURRENCY, (path) => readPathVersions(target, path));
  for (const [index, path] of pathList.entries()) {
    const indexed = new Map<string, number>();
    for (const record of versions[index]?.records ?? []) {
      indexed.set(record.artifactId, (indexed.get(record.artifactId) ?? 0) + 1);
    }
    for (const record of allRecords) {
      if (!isVersionRecord(record) || record.path !== path) continue;
      const left = indexed.get(record.artifactId) ?? 0;
      if (left > 0) indexed.set(record.artifactId, left - 1);
      else missing.push(record);
    }
  }
  const missingSet = new Set(missing);
  // In the run's record order, as the recorder appends them.
  const inOrder = allRecords.filter((record) => missingSet.has(record));
  await appendToRunIndexes(target, [...inOrder, ...tailRecords.filter((record) => !isVersionRecord(record))]);
  await appendToIndex(target, inOrder);
}

/** Copies one run file (not the records); returns the bytes written (0: the target had it already). */
async function copyFile(
  source: ProjectStore,
  target: ProjectStore,
  key: string,
  runId: RunId,
): Promise<number> {
  const name = key.slice(key.lastIndexOf('/') + 1);
  if (name.endsWith('.jsonl')) {
    const lines = await newLines(
      source,
      target,
      key,
      runId,
      APPEND_ONLY.has(name) || key === runEventsPath(runId),
    );
    if (lines.replace) {
      await target.replace(key, lines.text);
      return Buffer.byteLength(lines.text);
    }
    if (lines.text === '') return 0;
    await target.append(key, lines.text);
    return Buffer.byteLength(lines.text);
  }
  const bytes = await source.read(key);
  if (bytes === undefined) return 0;
  const there = await target.read(key);
  if (there !== undefined && Buffer.from(there).equals(bytes)) return 0;
  await target.replace(key, bytes);
  return bytes.byteLength;
}

/** Removes from the target the run's files the source no longer has (not its records or events). */
async function removeGone(
  target: ProjectStore,
  runId: RunId,
  sourceKeys: ReadonlySet<string>,
): Promise<number> {
  const targetKeys = (await runKeys(target, runId)) ?? [];
  let removed = 0;
  for (const key of targetKeys) {
    const name = key.slice(key.lastIndexOf('/') + 1);
    if (sourceKeys.has(key) || APPEND_ONLY.has(name)) continue;
    if (await target.remove(key)) removed += 1;
  }
  return removed;
}
