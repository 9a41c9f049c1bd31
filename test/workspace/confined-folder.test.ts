import { execFileSync } from 'node:child_process';
import { link, mkdir, rename, symlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ConfinedRoot, Confinement } from '../../src/workspace/confined-root-types.js';
import type { WriteStep } from '../../src/workspace/confined-write-options.js';
import type { FileOpening } from '../../src/workspace/read-outcome.js';
import { openRootPerTest, SENTINEL_BYTES, withinMs } from '../helpers/workspace-fixture.js';
import type { WorkspaceFixture } from '../helpers/workspace-fixture.js';

/** The opening's text when a file was opened (closing it), else its kind and code. */
async function readOpening(opening: FileOpening): Promise<string> {
  if (opening.kind !== 'opened') return opening.kind === 'refused' ? `refused:${opening.code}` : 'missing';
  try {
    return (await opening.handle.readFile()).toString('utf8');
  } finally {
    await opening.handle.close();
  }
}

describe.each<Confinement>(['proc-fd', 'lstat-walk'])('ConfinedRoot reads (%s)', (confinement) => {
  let fixture: WorkspaceFixture;
  let root: ConfinedRoot;
  openRootPerTest(confinement, (opened) => {
    ({ fixture, root } = opened);
  });

  const inRoot = (path: string): string => join(fixture.root, path);

  it('opens a regular file below the root and hands back its fstat', async () => {
    await mkdir(inRoot('a/b'), { recursive: true });
    await writeFile(inRoot('a/b/f.txt'), 'inside\n');
    const opening = await root.openFile('a/b/f.txt');
    expect(opening).toMatchObject({ kind: 'opened', stats: { size: 7, nlink: 1 } });
    expect(await readOpening(opening)).toBe('inside\n');
  });

  it.each([
    ['a symlinked folder on the way', 'linked/sentinel.txt', 'refused:symlink'],
    ['a symlink as the file', 'link.txt', 'refused:symlink'],
    ['a dangling symlink', 'dangling.txt', 'refused:symlink'],
    ['a hard link to an outside file', 'hard.txt', 'refused:hard_link'],
    ['a folder', 'folder', 'refused:is_a_directory'],
    ['a file as a folder on the way', 'plain.txt/inner', 'refused:not_a_directory'],
    ['a FIFO', 'pipe', 'refused:not_a_regular_file'],
    ['a missing file', 'nothing.txt', 'missing'],
    ['a file in a missing folder', 'gone/f.txt', 'missing'],
  ])('refuses %s', async (_name, relativePath, expected) => {
    await symlink(fixture.outside, inRoot('linked'));
    await symlink(join(fixture.outside, 'sentinel.txt'), inRoot('link.txt'));
    await symlink('nowhere.txt', inRoot('dangling.txt'));
    await link(join(fixture.outside, 'sentinel.txt'), inRoot('hard.txt'));
    await mkdir(inRoot('folder'));
    await writeFile(inRoot('plain.txt'), 'plain\n');
    execFileSync('mkfifo', [inRoot('pipe')]);
    expect(await withinMs(readOpening(await root.openFile(relativePath)), 5_000)).toBe(expected);
  });

  it('refuses a Unix socket as not_a_regular_file', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(inRoot('sock'), resolve));
    try {
      expect(await readOpening(await root.openFile('sock'))).toBe('refused:not_a_regular_file');
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('opens a hard-linked file only when asked to', async () => {
    await link(join(fixture.outside, 'sentinel.txt'), inRoot('hard.txt'));
    expect(await readOpening(await root.openFile('hard.txt', { allowHardLinks: true }))).toBe(SENTINEL_BYTES);
  });

  it('never reads the outside file when the folder is swapped for a symlink after the walk opened it', async () => {
    await mkdir(inRoot('d'));
    await writeFile(inRoot('d/f.txt'), 'inside\n');
    // outside/f.txt exists, so a read that followed the swapped link would see it.
    const swap = async (step: WriteStep): Promise<void> => {
      if (step.stage !== 'directory-opened' || step.directory !== 'd') return;
      await rename(inRoot('d'), inRoot('d.away'));
      await symlink(fixture.outside, inRoot('d'));
    };
    const opening = await root.openFile('d/f.txt', { onStep: swap });
    if (confinement === 'proc-fd') {
      // f.txt is looked up in the folder the walk holds open, wherever it has moved: the inside bytes.
      expect(await readOpening(opening)).toBe('inside\n');
    } else {
      // The fallback opens by path, through the link, then sees that the folder left its place.
      expect(opening).toMatchObject({
        kind: 'refused',
        code: 'symlink',
        relativePath: 'd/f.txt',
        swapped: true,
      });
    }
  });

  it('throws on a path that is not a plain path below the root', async () => {
    for (const bad of ['../outside/sentinel.txt', 'a/./b', '/etc/passwd', 'a//b', 'a/\0']) {
      await expect(root.openFile(bad)).rejects.toThrow(/is not a plain path below the root/);
    }
    expect(await root.openFile('')).toMatchObject({ kind: 'refused', code: 'is_a_directory' });
  });

  it('opens a folder once and looks up its entries by name', async () => {
    await mkdir(inRoot('src'));
    await writeFile(inRoot('src/a.ts'), 'a\n');
    await symlink('a.ts', inRoot('src/alias.ts'));
    const opening = await root.openFolder('src');
    if (opening.kind !== 'opened') throw new Error(`not opened: ${opening.kind}`);
    try {
      expect((await opening.folder.stat('a.ts'))?.size).toBe(2);
      expect((await opening.folder.stat('alias.ts'))?.isSymbolicLink()).toBe(true);
      expect(await opening.folder.stat('none.ts')).toBeUndefined();
      expect(await opening.folder.readlink('alias.ts')).toBe('a.ts');
      expect(await opening.folder.readlink('a.ts')).toBeUndefined();
      expect(await readOpening(await opening.folder.openFile('a.ts'))).toBe('a\n');
    } finally {
      await opening.folder.close();
    }
    await symlink(fixture.outside, inRoot('out'));
    expect(await root.openFolder('out')).toMatchObject({
      kind: 'refused',
      code: 'symlink',
      relativePath: 'out',
    });
    expect(await root.openFolder('nowhere')).toEqual({ kind: 'missing' });
  });

  it('lists a folder by name with what each entry is, never following a symlink', async () => {
    await mkdir(inRoot('runs/r2'), { recursive: true });
    await writeFile(inRoot('runs/b.json'), '{}');
    await symlink(fixture.outside, inRoot('runs/a-link'));
    execFileSync('mkfifo', [inRoot('runs/fifo')]);
    const opening = await root.openFolder('runs');
    if (opening.kind !== 'opened') throw new Error(`not opened: ${opening.kind}`);
    try {
      expect(await opening.folder.list()).toEqual([
        { name: 'a-link', kind: 'other' },
        { name: 'b.json', kind: 'file' },
        { name: 'fifo', kind: 'other' },
        { name: 'r2', kind: 'folder' },
      ]);
    } finally {
      await opening.folder.close();
    }
  });

  it('removes a file or a symlink itself, never its target, and answers false for a missing entry', async () => {
    await mkdir(inRoot('runs'));
    await writeFile(inRoot('runs/state.json'), '{}');
    await symlink(join(fixture.outside, 'sentinel.txt'), inRoot('runs/link.json'));
    const opening = await root.openFolder('runs');
    if (opening.kind !== 'opened') throw new Error(`not opened: ${opening.kind}`);
    try {
      expect(await opening.folder.remove('state.json')).toBe(true);
      expect(await opening.folder.remove('link.json')).toBe(true);
      expect(await opening.folder.remove('state.json')).toBe(false);
      expect(await opening.folder.list()).toEqual([]);
    } finally {
      await opening.folder.close();
    }
    await fixture.assertConfined();
  });
});
