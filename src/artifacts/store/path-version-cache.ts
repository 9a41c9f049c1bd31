import { constants } from 'node:fs';
import { join } from 'node:path';
import { pathIndexFile, sha256Hex } from '../../project/index.js';
import { errnoOf, quickFs } from '../../workspace/index.js';
import { artifactRecordSchema } from '../artifact-record.js';
import type { ArtifactRecord } from '../artifact-record.js';
import { parseRecordLines } from './record-lines.js';

/** O_NONBLOCK: a FIFO planted in place of the file never blocks the open, which runs on the calling thread. */
const READ_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK;

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
  readonly dev: number;
  readonly ino: number;
  /** Bytes of the index file read so far: up to and including its last complete line. */
  readonly size: number;
  readonly newest: NewestVersionLine | undefined;
  readonly record: ArtifactRecord | undefined;
  /** What this process appended since: the size the file has if nobody else appended, and the newest then. */
  readonly expected?: { readonly size: number; readonly newest: NewestVersionLine | undefined };
}

/**
 * A cache of the newest version per path: a path's index file is read whole once, then only the bytes appended
 * since (by this recorder or any other process), found by the file's size; a file replaced by `reindex` (another
 * inode) or shorter than what was read is read whole again. Index files are append-only, so what was read stays.
 */
export function openPathVersionCache(projectDir: string): PathVersionCache {
  const known = new Map<string, Known>();
  return {
    appended: (path, bytes, newest) => {
      const entry = known.get(path);
      if (entry === undefined) return;
      const size = (entry.expected?.size ?? entry.size) + bytes;
      known.set(path, { ...entry, expected: { size, newest } });
    },
    latest: async (path) => {
      const relative = pathIndexFile(sha256Hex(path));
      const believed = await believedNewest(join(projectDir, relative), known.get(path));
      if (believed !== undefined) {
        known.set(path, believed);
        return believed.record;
      }
      let handle;
      try {
        handle = await quickFs.open(join(projectDir, relative), READ_FLAGS);
      } catch (error) {
        if (errnoOf(error) !== 'ENOENT') throw error;
        known.delete(path);
        return undefined;
      }
      let tail: Buffer;
      let entry: Known | undefined;
      let from: number;
      let dev: number;
      let ino: number;
      try {
        const stats = await handle.stat();
        ({ dev, ino } = stats);
        entry = known.get(path);
        if (entry !== undefined && (entry.dev !== dev || entry.ino !== ino || entry.size > stats.size)) {
          entry = undefined;
        }
        from = entry?.size ?? 0;
        tail = Buffer.alloc(stats.size - from);
        let at = 0;
        while (at < tail.length) {
          const { bytesRead } = await handle.read(tail, at, tail.length - at, from + at);
          if (bytesRead === 0) break;
          at += bytesRead;
        }
        tail = tail.subarray(0, at);
      } finally {
        await handle.close();
      }
      // Only complete lines: a line still being written (or cut off) is read once its newline is there.
      const end = tail.lastIndexOf(0x0a) + 1;
      if (entry !== undefined && end === 0) return entry.record;
      const lines = tail.toString('utf8', 0, end).split('\n');
      lines.pop();
      const newest = newestVersionLine(lines, path, entry?.newest);
      let record = entry?.record;
      if (newest !== undefined && newest !== entry?.newest) {
        const checked = artifactRecordSchema.safeParse(newest.value);
        if (!checked.success) {
          // A malformed newest line: answer from the fully validated reading, which skips it, and cache nothing.
          known.delete(path);
          return validatedNewest(projectDir, relative, path);
        }
        record = checked.data;
      }
      known.set(path, { dev, ino, size: from + end, newest, record });
      return record;
    },
  };
}

/**
 * The entry of a path whose index file grew by exactly what this process appended (same file, size as expected:
 * one stat, no read), or undefined when it must be read. The newest's record was schema-checked when rendered.
 */
async function believedNewest(file: string, entry: Known | undefined): Promise<Known | undefined> {
  const expected = entry?.expected;
  if (entry === undefined || expected === undefined) return undefined;
  const stats = await quickFs.stat(file).catch(() => undefined);
  if (stats?.dev !== entry.dev || stats.ino !== entry.ino || stats.size !== expected.size) return undefined;
  const record =
    expected.newest === entry.newest ? entry.record : (expected.newest?.value as ArtifactRecord | undefined);
  return { dev: entry.dev, ino: entry.ino, size: expected.size, newest: expected.newest, record };
}

/** The newest valid version of `path` in its index file, by the same order as readPathVersions. */
async function validatedNewest(
  projectDir: string,
  relative: string,
  path: string,
): Promise<ArtifactRecord | undefined> {
  const text = await quickFs.readFile(join(projectDir, relative), 'utf8').catch((error: unknown) => {
    if (errnoOf(error) === 'ENOENT') return '';
    throw error;
  });
  const records = parseRecordLines(text, relative).records.filter((record) => record.path === path);
  return [...records].sort((a, b) => Date.parse(a.createdAt) - Date.parse(b.createdAt)).at(-1);
}
