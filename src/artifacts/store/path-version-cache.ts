import { pathIndexFile, sha256Hex } from '../../project/index.js';
import { usingProject } from '../../store/index.js';
import type { ProjectRef, StoredTail } from '../../store/index.js';
import { artifactRecordSchema } from '../artifact-record.js';
import type { ArtifactRecord } from '../artifact-record.js';
import { parseRecordLines } from './record-lines.js';

/** The newest line of a path found so far: its JSON value (not yet schema-checked) and its `createdAt` time. */
export interface NewestVersionLine {
  readonly value: unknown;
  readonly time: number;
}

/**
 * The newest of `lines` (JSON texts, in file order) that is a version of `path`, or `after` when none is as new:
 * newest by `createdAt`, and of equal times the later line, as readPathVersions' stable order has it.
 */
export function newestVersionLine(
  lines: Iterable<string>,
  path: string,
  after?: NewestVersionLine,
): NewestVersionLine | undefined {
  // Index lines are rendered by JSON.stringify, which escapes every '"' inside a string: the needles match only
  // the keys, so each line's path and time are found without parsing it, and only the newest line is parsed.
  const pathNeedle = `"path":${JSON.stringify(path)}`;
  const timeNeedle = '"createdAt":"';
  const candidates: { readonly line: string; readonly time: number; readonly order: number }[] = [];
  let order = 0;
  for (const line of lines) {
    order += 1;
    if (!line.includes(pathNeedle)) continue;
    const at = line.indexOf(timeNeedle);
    if (at === -1) continue;
    const from = at + timeNeedle.length;
    const time = Date.parse(line.slice(from, line.indexOf('"', from)));
    if (!Number.isNaN(time)) candidates.push({ line, time, order });
  }
  // Newest first, of equal times the later line; the first that parses as a version of `path` is the answer.
  candidates.sort((a, b) => b.time - a.time || b.order - a.order);
  for (const candidate of candidates) {
    // `>=`: a line as new as `after` is later than it, so it wins.
    if (after !== undefined && candidate.time < after.time) break;
    let value: unknown;
    try {
      value = JSON.parse(candidate.line);
    } catch {
      continue;
    }
    if (typeof value !== 'object' || value === null) continue;
    const { path: recordPath, createdAt } = value as { path?: unknown; createdAt?: unknown };
    if (recordPath !== path || typeof createdAt !== 'string' || Date.parse(createdAt) !== candidate.time)
      continue;
    return { value, time: candidate.time };
  }
  return after;
}

/** The newest recorded version of each path, read from the path index and kept between calls of one recorder. */
export interface PathVersionCache {
  /** The newest recorded version of `path` (as latestPathVersion answers it), or undefined when it has none. */
  latest(path: string): Promise<ArtifactRecord | undefined>;
  /**
   * Tells the cache that `bytes` of lines were appended to the index file of `path` (after a `latest` call for
   * it) and what its newest version then is: believed by the next `latest` only if the file grew by exactly
   * `bytes`, that is no other process appended meanwhile; otherwise the appended tail is read.
   */
  appended(path: string, bytes: number, newest: NewestVersionLine | undefined): void;
}

interface Known {
  /** The index file's version (`StoredTail.version`): another one (a `reindex`) is read whole again. */
  readonly version: string;
  /** Bytes of the index file read so far: up to and including its last complete line. */
  readonly size: number;
  readonly newest: NewestVersionLine | undefined;
  readonly record: ArtifactRecord | undefined;
  /** What this process appended since: the size the file has if nobody else appended, and the newest then. */
  readonly expected?: { readonly size: number; readonly newest: NewestVersionLine | undefined };
}

/**
 * A cache of the newest version per path: a path's index file is read whole once, then only the bytes appended
 * since (by this recorder or any other process), found by the file's size through the store's `readFrom`; a file
 * replaced by `reindex` (another version) or shorter than what was read is read whole again. Index files are
 * append-only, so what was read stays. A recorder opens it on its session, which keeps the index folder open; a
 * folder path opens its files store for each read.
 */
export function openPathVersionCache(project: ProjectRef): PathVersionCache {
  const known = new Map<string, Known>();
  const readFrom = (key: string, from: number, length?: number): Promise<StoredTail | undefined> =>
    usingProject(project, ({ store }) => store.readFrom(key, from, length));

  /** The newest version of `path` from the bytes of its index file appended since `entry` was read. */
  const readAppended = async (
    key: string,
    path: string,
    entry: Known | undefined,
  ): Promise<ArtifactRecord | undefined> => {
    let tail: StoredTail | undefined = await readFrom(key, entry?.size ?? 0);
    if (
      tail !== undefined &&
      entry !== undefined &&
      (tail.version !== entry.version || tail.size < entry.size)
    ) {
      entry = undefined;
      tail = await readFrom(key, 0);
    }
    if (tail === undefined) {
      known.delete(path);
      return undefined;
    }
    const from = entry?.size ?? 0;
    // Only complete lines: a line still being written (or cut off) is read once its newline is there.
    const end = tail.bytes.lastIndexOf(0x0a) + 1;
    if (entry !== undefined && end === 0) return entry.record;
    const lines = Buffer.from(tail.bytes.buffer, tail.bytes.byteOffset, end).toString('utf8').split('\n');
    lines.pop();
    const newest = newestVersionLine(lines, path, entry?.newest);
    let record = entry?.record;
    if (newest !== undefined && newest !== entry?.newest) {
      const checked = artifactRecordSchema.safeParse(newest.value);
      if (!checked.success) {
        // A malformed newest line: answer from the fully validated reading, which skips it, and cache nothing.
        known.delete(path);
        return validatedNewest(project, key, path);
      }
      record = checked.data;
    }
    known.set(path, { version: tail.version, size: from + end, newest, record });
    return record;
  };

  return {
    appended: (path, bytes, newest) => {
      const entry = known.get(path);
      if (entry === undefined) return;
      const size = (entry.expected?.size ?? entry.size) + bytes;
      known.set(path, { ...entry, expected: { size, newest } });
    },
    latest: async (path) => {
      const key = pathIndexFile(sha256Hex(path));
      const entry = known.get(path);
      const expected = entry?.expected;
      if (entry !== undefined && expected !== undefined) {
        // The file grew by exactly what this process appended (same file, size as expected): nothing to read.
        const now = await readFrom(key, expected.size, 0);
        if (now?.version === entry.version && now.size === expected.size) {
          // The newest's record was schema-checked when it was rendered.
          const record =
            expected.newest === entry.newest
              ? entry.record
              : (expected.newest?.value as ArtifactRecord | undefined);
          known.set(path, { version: entry.version, size: expected.size, newest: expected.newest, record });
          return record;
        }
      }
      return readAppended(key, path, entry);
    },
  };
}

/** The newest valid version of `path` in its index file, by the same order as readPathVersions. */
async function validatedNewest(
  project: ProjectRef,
  key: string,
  path: string,
): Promise<ArtifactRecord | undefined> {
  const text = (await usingProject(project, ({ store }) => store.readText(key))) ?? '';
  const records = parseRecordLines(text, key).records.filter((record) => record.path === path);
  return [...records].sort((a, b) => Date.parse(a.createdAt) - Date.parse(b.createdAt)).at(-1);
}
