import { createHash } from 'node:crypto';
import { lstat, mkdir, mkdtemp, readFile, readdir, readlink, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect } from 'vitest';
import { openConfinedRoot } from '../../src/workspace/confined-root.js';
import type { ConfinedRoot, Confinement } from '../../src/workspace/confined-root-types.js';
import { TEMP_FILE_PATTERN } from '../../src/workspace/temp-file-name.js';

/** One entry of a directory tree as the confinement tests compare it (never ctime or nlink: links change those). */
export interface TreeEntry {
  readonly path: string;
  readonly kind: 'file' | 'directory' | 'symlink' | 'other';
  readonly sha256?: string;
  readonly mtimeNs?: bigint;
  readonly linkTarget?: string;
}

/** A temp base holding a workspace root and an outside tree with sentinels that no write may touch. */
export interface WorkspaceFixture {
  readonly base: string;
  readonly root: string;
  readonly outside: string;
  /** The outside tree as it was when the fixture was made. */
  readonly outsideBefore: readonly TreeEntry[];
  /** Asserts the outside tree is byte- and mtime-identical and no temp file is left under the workspace root. */
  assertConfined(): Promise<void>;
  cleanup(): Promise<void>;
}

/** Bytes of the main outside sentinel, a file a confused writer would overwrite. */
export const SENTINEL_BYTES = 'outside sentinel: must never change\n';

/** Makes base/{workspace, outside}; outside holds sentinel.txt and files named like common write targets. */
export async function createWorkspaceFixture(): Promise<WorkspaceFixture> {
  const base = await mkdtemp(join(tmpdir(), 'artifact-ingest-ws-'));
  const root = join(base, 'workspace');
  const outside = join(base, 'outside');
  await mkdir(root);
  await mkdir(join(outside, 'sub'), { recursive: true });
  await writeFile(join(outside, 'sentinel.txt'), SENTINEL_BYTES);
  for (const name of ['f.txt', 'x.txt', 'a', 'sub/f.txt'])
    await writeFile(join(outside, name), `outside ${name}\n`);
  const outsideBefore = await snapshotTree(outside);
  return {
    base,
    root,
    outside,
    outsideBefore,
    assertConfined: async () => {
      expect(await snapshotTree(outside)).toEqual(outsideBefore);
      expect(await findTempFiles(root)).toEqual([]);
    },
    cleanup: () => rm(base, { recursive: true, force: true }),
  };
}

/** A fixture and a root opened on it, for one test. */
export interface OpenedRoot {
  readonly fixture: WorkspaceFixture;
  readonly root: ConfinedRoot;
}

/**
 * Registers hooks that give each test of the calling suite a fresh fixture and a root opened on it with
 * `confinement` (handed to `use`), and after each test close the root, assert nothing outside changed and no
 * temp file is left, and remove the fixture.
 */
export function openRootPerTest(confinement: Confinement, use: (opened: OpenedRoot) => void): void {
  let opened: OpenedRoot | undefined;
  beforeEach(async () => {
    const fixture = await createWorkspaceFixture();
    opened = { fixture, root: await openConfinedRoot(fixture.root, { confinement }) };
    use(opened);
  });
  afterEach(async () => {
    if (opened === undefined) return;
    const { fixture, root } = opened;
    opened = undefined;
    try {
      await root.close();
      await fixture.assertConfined();
    } finally {
      await fixture.cleanup();
    }
  });
}

/** Every entry under `directory`, sorted, walked without following symlinks. */
export async function snapshotTree(directory: string): Promise<TreeEntry[]> {
  const entries: TreeEntry[] = [];
  const visit = async (relative: string): Promise<void> => {
    const names = (await readdir(join(directory, relative))).sort();
    for (const name of names) {
      const path = relative === '' ? name : `${relative}/${name}`;
      const absolute = join(directory, path);
      const stats = await lstat(absolute, { bigint: true });
      if (stats.isSymbolicLink()) {
        entries.push({ path, kind: 'symlink', linkTarget: await readlink(absolute) });
      } else if (stats.isDirectory()) {
        entries.push({ path, kind: 'directory' });
        await visit(path);
      } else if (stats.isFile()) {
        const sha256 = createHash('sha256')
          .update(await readFile(absolute))
          .digest('hex');
        entries.push({ path, kind: 'file', sha256, mtimeNs: stats.mtimeNs });
      } else {
        entries.push({ path, kind: 'other' });
      }
    }
  };
  await visit('');
  return entries;
}

/** Paths under `directory` (symlinks not followed) whose name matches the writer's temp-file pattern. */
export async function findTempFiles(directory: string): Promise<string[]> {
  const tree = await snapshotTree(directory);
  return tree
    .filter((entry) => TEMP_FILE_PATTERN.test(entry.path.split('/').at(-1) ?? ''))
    .map((entry) => entry.path);
}

/** Rejects if `work` has not settled within `ms`, so a hang fails the test instead of stalling the suite. */
export async function withinMs<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(new Error(`did not settle within ${ms} ms`));
    }, ms);
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
