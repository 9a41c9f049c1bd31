import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import {
  artifactRecordsPath,
  PATH_INDEX_DIR,
  pathIndexEntry,
  pathIndexFile,
  sha256Hex,
} from '../../project/index.js';
import { errnoOf, openConfinedRoot } from '../../workspace/index.js';
import type { RecordRoots } from './record-roots.js';
import { artifactRecordSchema } from '../artifact-record.js';
import type { ArtifactRecord } from '../artifact-record.js';
import { appendLines, readRecordLines, readRecordsText, renderRecordLines } from './record-lines.js';
import type { ArtifactRecordsRead, RecordLineProblem } from './record-lines.js';
import { replaceIndexFolder } from './replace-index-folder.js';
import { listRecordedRuns } from './list-recorded-runs.js';
import { newestVersionLine } from './path-version-cache.js';
import { rebuildRunIndexes } from './rebuild-run-indexes.js';
import type { RunId } from '../../project/index.js';

/** The project-relative index file holding every version of `path`: `<PATH_INDEX_DIR>/<2 hex>/<62 hex>.jsonl`. */
export function indexFileOf(path: string): string {
  return pathIndexFile(sha256Hex(path));
}

/** Whether a record is a version of a file (and so indexed by path): every type but `trace`. */
export function isVersionRecord(record: ArtifactRecord): boolean {
  return record.type !== 'trace';
}

/**
 * Appends version records to the index file of their path, one O_APPEND write per path, through `roots` when given
 * (a recorder's, kept open) and up to INDEX_APPENDS_AT_ONCE files at a time, so their fsyncs share journal commits.
 */
export async function appendToIndex(
  projectDir: string,
  records: readonly ArtifactRecord[],
  durability: 'fsync' | 'none' = 'fsync',
  roots?: RecordRoots,
): Promise<void> {
  const byFile = new Map<string, ArtifactRecord[]>();
  for (const record of records) {
    if (!isVersionRecord(record)) continue;
    const file = indexFileOf(record.path);
    const list = byFile.get(file) ?? [];
    list.push(record);
    byFile.set(file, list);
  }
  const appends = [...byFile].map(([file, list]) => ({ file, text: renderRecordLines(list) }));
  const work = async (): Promise<void> => {
    for (let next = appends.shift(); next !== undefined; next = appends.shift()) {
      await appendLines(projectDir, next.file, next.text, durability, roots);
    }
  };
  await Promise.all(Array.from({ length: Math.min(INDEX_APPENDS_AT_ONCE, appends.length) }, work));
}

/** Index files appended at once: the pool of libuv's default 4 threads, plus one waiting for each. */
const INDEX_APPENDS_AT_ONCE = 8;

/**
 * Every recorded version of `path` across the project's runs, oldest first (by `createdAt`, then index order),
 * read from the path's one index file: the cost is the number of versions of that path, not of the project.
 */
export async function readPathVersions(projectDir: string, path: string): Promise<ArtifactRecordsRead> {
  const read = await readRecordLines(projectDir, indexFileOf(path));
  // Another path hashing to the same file is astronomically unlikely; a record for it is simply not this path's.
  const records = read.records.filter((record) => record.path === path);
  return { records: sortByTime(records), problems: read.problems };
}

/**
 * The versions of `path` whose artifact id is in `ids`, the first line of each (an id names one content at one
 * place, so any of its records will do), from the path's one index file: only the lines naming a wanted id are
 * parsed, so the cost is reading the file, not validating every version in it.
 */
export async function readPathVersionsById(
  projectDir: string,
  path: string,
  ids: ReadonlySet<string>,
): Promise<ArtifactRecord[]> {
  const text = await readRecordsText(projectDir, indexFileOf(path));
  const found = new Map<string, ArtifactRecord>();
  const needles = [...ids].map((id) => [id, `"artifactId":${JSON.stringify(id)}`] as const);
  for (const line of text.split('\n')) {
    const match = needles.find(([id, needle]) => !found.has(id) && line.includes(needle));
    if (match === undefined) continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      continue;
    }
    const checked = artifactRecordSchema.safeParse(value);
    if (checked.success && checked.data.path === path && checked.data.artifactId === match[0])
      found.set(match[0], checked.data);
    if (found.size === ids.size) break;
  }
  return [...found.values()];
}

/**
 * The newest recorded version of `path`, or undefined when it has none, from the path's one index file: each line's
 * path and `createdAt` are found by substring and only the newest line is parsed and schema-checked (when it is not
 * a valid record, the fully validated reading of every line answers instead). A recorder keeps a PathVersionCache.
 */
export async function latestPathVersion(
  projectDir: string,
  path: string,
): Promise<ArtifactRecord | undefined> {
  const text = await readRecordsText(projectDir, indexFileOf(path));
  const latest = newestVersionLine(text.split('\n'), path);
  if (latest === undefined) return undefined;
  const checked = artifactRecordSchema.safeParse(latest.value);
  // A malformed newest line: fall back to the fully validated reading, which skips it.
  return checked.success ? checked.data : (await readPathVersions(projectDir, path)).records.at(-1);
}

/** What {@link rebuildArtifactIndex} did. */
export interface IndexRebuild {
  readonly runs: number;
  readonly records: number;
  readonly paths: number;
  /** Segments of the rebuilt history journal (.agent/index/history/), the open one included. */
  readonly historySegments: number;
  /** Unreadable lines of the runs' artifacts.jsonl, left out of the index. */
  readonly problems: readonly RecordLineProblem[];
}

/**
 * Rebuilds every index from every run's artifacts.jsonl (the source of truth): the path index, then the
 * run-order index and the history journal (rebuildRunIndexes). The new path index is written in a
 * staging folder beside it, then each file is renamed over the old one and files of paths no run records any
 * more are removed (the workspace writer's `publish({ mode: 'files' })`). Records appended while it runs may
 * miss the index until the next rebuild: run it when nothing is recording.
 */
export async function rebuildArtifactIndex(projectDir: string): Promise<IndexRebuild> {
  const runs = await listRecordedRuns(projectDir);
  const problems: RecordLineProblem[] = [];
  const byFile = new Map<string, ArtifactRecord[]>();
  const byRun = new Map<RunId, readonly ArtifactRecord[]>();
  let count = 0;
  for (const runId of runs) {
    const read = await readRecordLines(projectDir, artifactRecordsPath(runId));
    problems.push(...read.problems);
    byRun.set(runId, read.records);
    for (const record of read.records) {
      if (!isVersionRecord(record)) continue;
      count += 1;
      const file = pathIndexEntry(sha256Hex(record.path));
      const list = byFile.get(file) ?? [];
      list.push(record);
      byFile.set(file, list);
    }
  }
  const root = await openConfinedRoot(projectDir);
  try {
    await replaceIndexFolder(root, PATH_INDEX_DIR, async (files) => {
      // Durable once, at publish: a crash before it leaves only a staging folder that nothing reads.
      for (const [file, list] of byFile) {
        const outcome = await files.write(file, Buffer.from(renderRecordLines(list), 'utf8'), {
          durability: 'none',
        });
        if (outcome.status === 'refused')
          throw new Error(`cannot write index file ${file}: ${outcome.message}`);
      }
    });
  } finally {
    await root.close();
  }
  const { segments } = await rebuildRunIndexes(projectDir, byRun);
  return { runs: runs.length, records: count, paths: byFile.size, historySegments: segments, problems };
}

/** Lists the index files below PATH_INDEX_DIR (project-relative), for checks that compare the index with the runs. */
export async function listIndexFiles(projectDir: string): Promise<string[]> {
  const files: string[] = [];
  let fanout: string[];
  try {
    fanout = await readdir(join(projectDir, PATH_INDEX_DIR));
  } catch (error) {
    if (errnoOf(error) === 'ENOENT') return [];
    throw error;
  }
  for (const dir of fanout.sort()) {
    if (!/^[0-9a-f]{2}$/.test(dir)) continue;
    const names = await readdir(join(projectDir, PATH_INDEX_DIR, dir));
    for (const name of names.sort())
      if (/^[0-9a-f]{62}\.jsonl$/.test(name)) files.push(`${PATH_INDEX_DIR}/${dir}/${name}`);
  }
  return files;
}

/** Sorts records oldest first by `createdAt`; equal times keep their order (Array.prototype.sort is stable). */
export function sortByTime(records: readonly ArtifactRecord[]): ArtifactRecord[] {
  return [...records].sort((a, b) => Date.parse(a.createdAt) - Date.parse(b.createdAt));
}
