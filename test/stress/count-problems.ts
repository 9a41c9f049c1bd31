/**
 * The counts `npm run stress` prints, each a pure look at the disk: torn files, escapes, unreadable record
 * lines, stale temp files and drift. Kept apart from the harness so a vitest test can plant each problem.
 */
import { createHash } from 'node:crypto';
import { lstat, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { TEMP_FILE_PATTERN } from '../../src/workspace/temp-file-name.js';

/** Every entry below a folder (relative, '/'-separated) with its kind, found without following symlinks. */
export type TreeSnapshot = ReadonlyMap<string, 'file' | 'folder' | 'symlink' | 'other'>;

/** Walks `root` by lstat; a folder that vanishes mid-walk (a swap) is skipped. */
export async function snapshotTree(root: string): Promise<TreeSnapshot> {
  const entries = new Map<string, 'file' | 'folder' | 'symlink' | 'other'>();
  const walk = async (relative: string): Promise<void> => {
    let names: string[];
    try {
      names = await readdir(path.join(root, relative));
    } catch {
      return;
    }
    for (const name of names) {
      const child = relative === '' ? name : `${relative}/${name}`;
      let info;
      try {
        info = await lstat(path.join(root, child));
      } catch {
        continue;
      }
      const kind = info.isSymbolicLink()
        ? 'symlink'
        : info.isDirectory()
          ? 'folder'
          : info.isFile()
            ? 'file'
            : 'other';
      entries.set(child, kind);
      if (kind === 'folder') await walk(child);
    }
  };
  await walk('');
  return entries;
}

/**
 * Entries of `after` that `before` lacks and that lie outside every allowed folder (relative to the same root):
 * files the writer created where it must not (escapes).
 */
export function findEscapes(before: TreeSnapshot, after: TreeSnapshot, allowed: readonly string[]): string[] {
  return [...after.keys()].filter(
    (entry) =>
      !before.has(entry) && !allowed.some((folder) => entry === folder || entry.startsWith(`${folder}/`)),
  );
}

/** Lines of a JSON-lines file that do not parse as a JSON object (a missing file has none). */
export async function countUnreadableLines(file: string): Promise<number> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return 0;
  }
  let unreadable = 0;
  for (const line of text.split('\n')) {
    if (line === '') continue;
    try {
      const value: unknown = JSON.parse(line);
      if (typeof value !== 'object' || value === null || Array.isArray(value)) unreadable += 1;
    } catch {
      unreadable += 1;
    }
  }
  return unreadable;
}

/** Unreadable lines of every run's events.jsonl and artifacts.jsonl in a project. */
export async function countUnreadableRecordLines(projectDir: string): Promise<number> {
  const runs = path.join(projectDir, '.agent', 'runs');
  let ids: string[];
  try {
    ids = await readdir(runs);
  } catch {
    return 0;
  }
  let unreadable = 0;
  for (const id of ids) {
    for (const name of ['events.jsonl', 'artifacts.jsonl']) {
      unreadable += await countUnreadableLines(path.join(runs, id, name));
    }
  }
  return unreadable;
}

/** The writer's temp files (TEMP_FILE_PATTERN) anywhere in a snapshot. */
export function findStaleTemps(tree: TreeSnapshot): string[] {
  return [...tree.keys()].filter((entry) => TEMP_FILE_PATTERN.test(path.posix.basename(entry)));
}

/** sha256 (hex) of some bytes. */
export function sha256Of(bytes: Uint8Array | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * Workspace files whose bytes are neither a version some block gave their path (`allowed`: path -> sha256s of
 * every content ever written there, the previous version included) nor absent: torn or foreign bytes.
 */
export async function findTornFiles(
  workspaceDir: string,
  allowed: ReadonlyMap<string, ReadonlySet<string>>,
): Promise<string[]> {
  const torn: string[] = [];
  for (const [entry, kind] of await snapshotTree(workspaceDir)) {
    if (kind !== 'file' || TEMP_FILE_PATTERN.test(path.posix.basename(entry))) continue;
    const hashes = allowed.get(entry);
    if (hashes === undefined) continue;
    let bytes: Buffer;
    try {
      bytes = await readFile(path.join(workspaceDir, entry));
    } catch {
      continue;
    }
    if (!hashes.has(sha256Of(bytes))) torn.push(entry);
  }
  return torn;
}

/** The error count of `verify --json` output (drift between the records and the disk); unparsable output is 1. */
export function countDrift(verifyJson: string): number {
  try {
    const report = JSON.parse(verifyJson) as { errors?: unknown };
    return typeof report.errors === 'number' ? report.errors : 1;
  } catch {
    return 1;
  }
}
