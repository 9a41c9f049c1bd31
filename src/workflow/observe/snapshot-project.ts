import { constants } from 'node:fs';
import { lstat, open } from 'node:fs/promises';
import path from 'node:path';
import type FastGlob from 'fast-glob';
import { AGENT_DIR, lazyModule } from '../../project/index.js';
import { errnoOf } from '../../workspace/index.js';
import { compileGitignore } from './gitignore-matcher.js';
import type { GitignoreMatcher } from './gitignore-matcher.js';
import { hashProjectFile } from './hash-project-file.js';
import type { ProjectFileHasher } from './hash-project-file.js';
import type { ProjectSnapshot, SnapshotEntry } from './project-snapshot-schema.js';

/** fast-glob loads on the first snapshot: the workflow commands that take none (status, list) skip it. */
const fastGlob = lazyModule<typeof FastGlob>('fast-glob');

/** Folders a snapshot never enters (spec workflow-mcp.md, "Declared versus observed"). */
export const SNAPSHOT_EXCLUDED = ['.git', AGENT_DIR, 'node_modules'] as const;

// `.git` and `node_modules` at any depth (submodules, nested packages); `.agent` is the project's own, at the root.
const WALK_IGNORE = [
  '**/.git',
  '**/.git/**',
  AGENT_DIR,
  `${AGENT_DIR}/**`,
  '**/node_modules',
  '**/node_modules/**',
];

/** Options of {@link snapshotProject}. */
export interface SnapshotOptions {
  /** Reads and hashes one file; by default {@link hashProjectFile}. */
  readonly hasher?: ProjectFileHasher;
  /** Clock for `taken_at`, for tests. */
  readonly now?: () => Date;
  /** How many files are stat'ed and hashed at once (default 32). */
  readonly concurrency?: number;
}

/**
 * Snapshots the project tree: every regular file and symlink outside `.git`, `.agent`, `node_modules` and the
 * root `.gitignore`'s paths, with size and mtime; a file whose size and mtime equal its entry in `previous`
 * keeps that entry's hash unread, every other file is hashed.
 */
export async function snapshotProject(
  projectDir: string,
  previous?: ProjectSnapshot,
  options: SnapshotOptions = {},
): Promise<ProjectSnapshot> {
  const hasher = options.hasher ?? hashProjectFile;
  const takenAt = (options.now ?? (() => new Date()))().toISOString();
  const gitignore = await readRootGitignore(projectDir);
  const walked = await fastGlob()('**', {
    cwd: projectDir,
    dot: true,
    followSymbolicLinks: false,
    onlyFiles: false,
    objectMode: true,
    ignore: WALK_IGNORE,
  });
  const candidates = walked
    .filter((entry) => entry.dirent.isFile() || entry.dirent.isSymbolicLink())
    .map((entry) => entry.path)
    .filter((relative) => !gitignore.ignores(relative))
    .sort(compareCodeUnits);

  const entries = new Array<SnapshotEntry | undefined>(candidates.length);
  await forEachLimited(candidates.length, options.concurrency ?? 32, async (index) => {
    const relative = candidates[index] ?? '';
    entries[index] = await observeFile(projectDir, relative, previous?.files[relative], hasher);
  });
  // No prototype: a file named '__proto__' is a key like any other.
  const files = Object.create(null) as Record<string, SnapshotEntry>;
  candidates.forEach((relative, index) => {
    const entry = entries[index];
    if (entry !== undefined) files[relative] = entry;
  });
  return { version: 1, taken_at: takenAt, files };
}

/** Stats one walked path and hashes it unless `before` has the same size and mtime; undefined if it vanished. */
async function observeFile(
  projectDir: string,
  relative: string,
  before: SnapshotEntry | undefined,
  hasher: ProjectFileHasher,
): Promise<SnapshotEntry | undefined> {
  const absolute = path.join(projectDir, relative);
  try {
    const info = await lstat(absolute);
    const symlink = info.isSymbolicLink();
    // A path replaced by a folder or a FIFO between the walk and the stat is not a file any more.
    if (!symlink && !info.isFile()) return undefined;
    const size = info.size;
    const mtimeMs = info.mtimeMs;
    const unchanged =
      before !== undefined &&
      before.size === size &&
      before.mtime_ms === mtimeMs &&
      (before.symlink === true) === symlink;
    const sha256 = unchanged ? before.sha256 : await hasher(absolute, symlink ? 'symlink' : 'file', size);
    return { size, mtime_ms: mtimeMs, sha256, ...(symlink ? { symlink: true as const } : {}) };
  } catch (error) {
    // Deleted (or swapped for a symlink, ELOOP under O_NOFOLLOW) while the snapshot ran: absent from this one.
    const errno = errnoOf(error);
    if (errno === 'ENOENT' || errno === 'ENOTDIR' || errno === 'ELOOP') return undefined;
    throw error;
  }
}

/** The matcher of the project's root `.gitignore`, read without following a symlink; none when absent. */
async function readRootGitignore(projectDir: string): Promise<GitignoreMatcher> {
  try {
    const handle = await open(path.join(projectDir, '.gitignore'), constants.O_RDONLY | constants.O_NOFOLLOW);
    try {
      return compileGitignore(await handle.readFile('utf8'));
    } finally {
      await handle.close();
    }
  } catch (error) {
    const errno = errnoOf(error);
    if (errno === 'ENOENT' || errno === 'ELOOP' || errno === 'EISDIR') return compileGitignore('');
    throw error;
  }
}

async function forEachLimited(
  count: number,
  limit: number,
  work: (index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) {
      const index = next;
      next += 1;
      await work(index);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, count)) }, worker));
}

function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
