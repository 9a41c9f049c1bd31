import { mkdir, readdir, readFile, rename, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ConfinedRoot, Confinement } from '../../src/workspace/confined-root-types.js';
import { openRootPerTest } from '../helpers/workspace-fixture.js';
import type { WorkspaceFixture } from '../helpers/workspace-fixture.js';

const bytesOf = (text: string): Uint8Array => new TextEncoder().encode(text);

describe.each<Confinement>(['proc-fd', 'lstat-walk'])('ConfinedRoot.writeBatch (%s)', (confinement) => {
  let fixture: WorkspaceFixture;
  let root: ConfinedRoot;
  openRootPerTest(confinement, (opened) => {
    ({ fixture, root } = opened);
  });
  const inRoot = (path: string): string => join(fixture.root, path);

  it.each(['none', 'fsync'] as const)(
    'writes many files in shared folders as single writes would (durability %s)',
    async (durability) => {
      const batch = root.writeBatch();
      const outcomes = [];
      for (const path of ['a/x.ts', 'a/y.ts', 'b/c/z.ts', 'a/x.ts', 'top.ts', '../up.ts']) {
        outcomes.push(await batch.write(path, bytesOf(`${path}\n`), { durability }));
      }
      expect(await batch.finish()).toEqual([]);
      expect(outcomes.map((outcome) => outcome.status)).toEqual([
        'written',
        'written',
        'written',
        'unchanged',
        'written',
        'refused',
      ]);
      expect(await readFile(inRoot('a/y.ts'), 'utf8')).toBe('a/y.ts\n');
      expect(await readFile(inRoot('b/c/z.ts'), 'utf8')).toBe('b/c/z.ts\n');
      await fixture.assertConfined();
    },
  );

  it('refuses a write into a shared folder that was swapped for a symlink to outside after the first write', async () => {
    const batch = root.writeBatch();
    const options = { durability: 'none' } as const;
    expect(await batch.write('a/first.ts', bytesOf('1\n'), options)).toMatchObject({ status: 'written' });
    // The batch holds a/ open; moving it away and linking its name outside must not lead the next write there.
    await rename(inRoot('a'), inRoot('a-moved'));
    await symlink(fixture.outside, inRoot('a'));
    expect(await batch.write('a/sentinel.txt', bytesOf('pwned\n'), options)).toMatchObject({
      status: 'refused',
    });
    expect(await batch.finish()).toEqual([]);
    expect(await readdir(inRoot('a-moved'))).toEqual(['first.ts']);
    await fixture.assertConfined();
  });

  it('walks a folder again after finish, so a later write sees the folder as it is now', async () => {
    const batch = root.writeBatch();
    await batch.write('a/first.ts', bytesOf('1\n'));
    await batch.finish();
    await rename(inRoot('a'), inRoot('a-moved'));
    await mkdir(inRoot('a'));
    expect(await batch.write('a/second.ts', bytesOf('2\n'))).toMatchObject({ status: 'written' });
    await batch.finish();
    expect(await readdir(inRoot('a'))).toEqual(['second.ts']);
  });

  it('reports a folder whose deferred sync failed, naming the files written into it', async () => {
    const batch = root.writeBatch();
    await batch.write('a/one.ts', bytesOf('1\n'), { durability: 'fsync' });
    await batch.write('a/two.ts', bytesOf('2\n'), { durability: 'fsync' });
    await batch.write('b/three.ts', bytesOf('3\n'), { durability: 'fsync' });
    // The fallback syncs a folder by its path, so a folder moved away cannot be synced; proc-fd holds it open.
    await rename(inRoot('a'), inRoot('a-moved'));
    const unsynced = await batch.finish();
    if (confinement === 'lstat-walk') {
      expect(unsynced.map(({ directory, paths }) => ({ directory, paths }))).toEqual([
        { directory: 'a', paths: ['a/one.ts', 'a/two.ts'] },
      ]);
      expect(unsynced[0]?.error).toMatchObject({ name: 'WorkspaceError', syscall: 'fsync' });
    } else {
      expect(unsynced).toEqual([]);
    }
  });
});
