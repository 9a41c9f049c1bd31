import { artifactRecordsPath, PATH_INDEX_DIR, pathIndexFile, sha256Hex } from '../../project/index.js';
import type { RunId } from '../../project/index.js';
import { usingProject } from '../../store/index.js';
import type { ProjectRef } from '../../store/index.js';
import { artifactRecordSchema } from '../artifact-record.js';
import type { ArtifactRecord } from '../artifact-record.js';
import { appendLines, readRecordLines, readRecordsText, renderRecordLines } from './record-lines.js';
import type { ArtifactRecordsRead, RecordLineProblem } from './record-lines.js';
import { listRecordedRuns } from '../../store/index.js';
import { newestVersionLine } from './path-version-cache.js';
import { rebuildRunIndexes } from './rebuild-run-indexes.js';
import { sortByTime } from './sort-by-time.js';

/** The project-relative index file holding every version of `path`: `<PATH_INDEX_DIR>/<2 hex>/<62 hex>.jsonl`. */
export function indexFileOf(path: string): string {
  return pathIndexFile(sha256Hex(path));
}

/** Whether a record is a version of a file (and so indexed by path): every type but `trace`. */
export function isVersionRecord(record: ArtifactRecord): boolean {
  return record.type !== 'trace';
}

/**
 * Appends version records to the index file of their path, one append per path, up to INDEX_APPENDS_AT_ONCE
 * files at a time, so their fsyncs share journal commits (a recorder passes its session, which keeps the index
 * folder open).
 */
export async function appendToIndex(
  project: ProjectRef,
  records: readonly ArtifactRecord[],
  durability: 'fsync' | 'none' = 'fsync',
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
  if (appends.length === 0) return;
  await usingProject(project, async ({ store }) => {
    const work = async (): Promise<void> => {
      for (let next = appends.shift(); next !== undefined; next = appends.shift()) {
        await appendLines(store, next.file, next.text, durability);
      }
    };
    await Promise.all(Array.from({ length: Math.min(INDEX_APPENDS_AT_ONCE, appends.length) }, work));
  });
}

/** Index files appended at once: the pool of libuv's default 4 threads, plus one waiting for each. */
const INDEX_APPENDS_AT_ONCE = 8;

/**
 * Every recorded version of `path` across the project's runs, oldest first (by `createdAt`, then index order),
 * read from the path's one index file: the cost is the number of versions of that path, not of the project.
 */
export async function readPathVersions(project: ProjectRef, path: string): Promise<ArtifactRecordsRead> {
  const read = await readRecordLines(project, indexFileOf(path));
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
  project: ProjectRef,
  path: string,
  ids: ReadonlySet<string>,
): Promise<ArtifactRecord[]> {
  const text = await readRecordsText(project, indexFileOf(path));
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
  project: ProjectRef,
  path: string,
): Promise<ArtifactRecord | undefined> {
  return usingProject(project, async (opened) => {
    const text = await readRecordsText(opened, indexFileOf(path));
    const latest = newestVersionLine(text.split('\n'), path);
    if (latest === undefined) return undefined;
    const checked = artifactRecordSchema.safeParse(latest.value);
    // A malformed newest line: fall back to the fully validated reading, which skips it.
    return checked.success ? checked.data : (await readPathVersions(opened, path)).records.at(-1);
  });
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
 * run-order index and the history journal (rebuildRunIndexes). The new path index is written aside, then put in
 * place file by file, and files of paths no run records any more are removed (the store's `replaceFolder`, D101).
 * Records appended while it runs may miss the index until the next rebuild: run it when nothing is recording.
 */
export async function rebuildArtifactIndex(project: ProjectRef): Promise<IndexRebuild> {
  return usingProject(project, async (opened) => {
    const runs = await listRecordedRuns(opened);
    const problems: RecordLineProblem[] = [];
    const byFile = new Map<string, ArtifactRecord[]>();
    const byRun = new Map<RunId, readonly ArtifactRecord[]>();
    let count = 0;
    for (const runId of runs) {
      const read = await readRecordLines(opened, artifactRecordsPath(runId));
      problems.push(...read.problems);
      byRun.set(runId, read.records);
      for (const record of read.records) {
        if (!isVersionRecord(record)) continue;
        count += 1;
        const file = indexFileOf(record.path);
        const list = byFile.get(file) ?? [];
        list.push(record);
        byFile.set(file, list);
      }
    }
    await opened.store.replaceFolder(PATH_INDEX_DIR, async (files) => {
      for (const [file, list] of byFile) await files.write(file, renderRecordLines(list));
    });
    const { segments } = await rebuildRunIndexes(opened, byRun);
    return { runs: runs.length, records: count, paths: byFile.size, historySegments: segments, problems };
  });
}

/** Lists the index files below PATH_INDEX_DIR (project-relative), for checks that compare the index with the runs. */
export async function listIndexFiles(project: ProjectRef): Promise<string[]> {
  return usingProject(project, async ({ store }) => {
    const files: string[] = [];
    for (const fanout of await store.list(PATH_INDEX_DIR)) {
      if (!/^[0-9a-f]{2}$/.test(fanout.name)) continue;
      // Listed whatever it is: a file or a symlink in the fan-out's place is refused by the store, not skipped.
      const folder = `${PATH_INDEX_DIR}/${fanout.name}`;
      for (const entry of await store.list(folder))
        if (/^[0-9a-f]{62}\.jsonl$/.test(entry.name)) files.push(`${folder}/${entry.name}`);
    }
    return files;
  });
}
