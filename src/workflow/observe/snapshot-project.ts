import type FastGlob from 'fast-glob';
import { AGENT_DIR, lazyModule } from '../../project/index.js';
import { openConfinedRoot } from '../../workspace/index.js';
import type { ConfinedFolder, ConfinedRoot } from '../../workspace/index.js';
import { compileGitignore } from './gitignore-matcher.js';
import type { GitignoreMatcher } from './gitignore-matcher.js';
import { hashProjectFile } from './hash-project-file.js';
import type { ProjectFileHasher } from './hash-project-file.js';
import type { ProjectSnapshot, SnapshotEntry } from './project-snapshot-schema.js';
import { SECRET_KEY_PREFIX, snapshotKey } from './snapshot-key.js';

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
 * root `.gitignore`'s paths, keyed by `snapshotKey` (a secret-shaped path by its digest), with size and mtime; a file whose size and mtime equal its entry in `previous`
 * keeps that entry's hash unread, every other file is hashed. Every file is looked up and read through the
 * confined walk (no symlink followed on the way), so a folder swapped for a link never lends its target's files.
 */
export async function snapshotProject(
  projectDir: string,
  previous?: ProjectSnapshot,
  options: SnapshotOptions = {},
): Promise<ProjectSnapshot> {
  const hasher = options.hasher ?? hashProjectFile;
  const takenAt = (options.now ?? (() => new Date()))().toISOString();
  const root = await openConfinedRoot(projectDir);
  try {
    const gitignore = await readRootGitignore(root);
    const walked = await fastGlob()('**', {
      cwd: root.realPath,
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

    // What each path is stored under: a secret-shaped one by its digest, never verbatim (D84). A path stored as
    // itself in `previous` is its own key (the verdict cannot change), which spares a warm snapshot the scan.
    const keys = candidates.map((relative) =>
      previous !== undefined &&
      Object.hasOwn(previous.files, relative) &&
      !relative.startsWith(SECRET_KEY_PREFIX)
        ? relative
        : snapshotKey(relative),
    );
    const entries = new Array<SnapshotEntry | undefined>(candidates.length);
    const folders = byFolder(candidates);
    await forEachLimited(folders.length, options.concurrency ?? 32, async (index) => {
      const folder = folders[index];
      if (folder === undefined) return;
      const opening = await root.openFolder(folder.path);
      // A folder gone, or swapped for a symlink, since the walk: its files are absent from this snapshot.
      if (opening.kind !== 'opened') return;
      try {
        for (const { at, name } of folder.files) {
          const relative = candidates[at] ?? '';
          const before = previous?.files[keys[at] ?? relative];
          entries[at] = await observeFile(opening.folder, name, relative, before, hasher);
        }
      } finally {
        await opening.folder.close();
      }
    });
    const found = keys
      .map((key, index) => [key, entries[index]] as const)
      .filter((pair): pair is readonly [string, SnapshotEntry] => pair[1] !== undefined)
      .sort(([a], [b]) => compareCodeUnits(a, b));
    // No prototype: a file named '__proto__' is a key like any other.
    const files = Object.create(null) as Record<string, SnapshotEntry>;
    for (const [key, entry] of found) files[key] = entry;
    return { version: 1, taken_at: takenAt, files };
  } finally {
    await root.close();
  }
}

/** The walked files grouped by folder, each with its index in `candidates`, so a folder is opened once. */
function byFolder(
  candidates: readonly string[],
): { readonly path: string; readonly files: { at: number; name: string }[] }[] {
  const folders = new Map<string, { at: number; name: string }[]>();
  candidates.forEach((relative, at) => {
    const slash = relative.lastIndexOf('/');
    const folder = slash === -1 ? '' : relative.slice(0, slash);
    const file = { at, name: relative.slice(slash + 1) };
    const known = folders.get(folder);
    if (known === undefined) folders.set(folder, [file]);
    else known.push(file);
  });
  return [...folders].map(([path, files]) => ({ path, files }));
}

/**
 * Stats one walked file in its opened folder and hashes it unless `before` has the same size and mtime;
 * undefined when it vanished, or became something other than a file or a symlink, since the walk.
 */
async function observeFile(
  folder: ConfinedFolder,
  name: string,
  relative: string,
  before: SnapshotEntry | undefined,
  hasher: ProjectFileHasher,
): Promise<SnapshotEntry | undefined> {
  const info = await folder.stat(name);
  if (info === undefined) return undefined;
  const symlink = info.isSymbolicLink();
  if (!symlink && !info.isFile()) return undefined;
  const unchanged =
    before !== undefined &&
    before.size === info.size &&
    before.mtime_ms === info.mtimeMs &&
    (before.symlink === true) === symlink;
  if (unchanged) return before;
  if (symlink) {
    const text = await folder.readlink(name);
    if (text === undefined) return undefined;
    const sha256 = await hasher({ kind: 'symlink', path: relative, text });
    return { size: info.size, mtime_ms: info.mtimeMs, sha256, symlink: true };
  }
  // A hard link is the project's file as much as any other: its bytes are hashed, never stored.
  const opening = await folder.openFile(name, { allowHardLinks: true, seen: info });
  if (opening.kind !== 'opened') return undefined;
  try {
    const { handle, stats } = opening;
    const sha256 = await hasher({ kind: 'file', path: relative, handle, size: stats.size });
    // The size and mtime of the very file hashed, which may have changed since the lstat.
    return { size: stats.size, mtime_ms: stats.mtimeMs, sha256 };
  } finally {
    await opening.handle.close();
  }
}

/** The matcher of the project's root `.gitignore`, read without following a symlink; none when absent. */
async function readRootGitignore(root: ConfinedRoot): Promise<GitignoreMatcher> {
  const opening = await root.openFile('.gitignore', { allowHardLinks: true });
  if (opening.kind !== 'opened') return compileGitignore('');
  try {
    return compileGitignore((await opening.handle.readFile()).toString('utf8'));
  } finally {
    await opening.handle.close();
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
