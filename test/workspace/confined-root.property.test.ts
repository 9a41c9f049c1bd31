import { lstat, mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { openConfinedRoot } from '../../src/workspace/confined-root.js';
import type { Confinement } from '../../src/workspace/confined-root-types.js';
import { atScale } from '../helpers/test-scale.js';
import { createWorkspaceFixture, findTempFiles, snapshotTree } from '../helpers/workspace-fixture.js';

const pieces = [
  '..',
  '.',
  '',
  '...',
  'escape',
  'inner-escape',
  'dir',
  'file.txt',
  'f.txt',
  'sentinel.txt',
  '.git',
  '.GIT.',
  'git~1',
  'CON',
  'nul.txt',
  'COM\u00b9',
  'a',
  'b.txt',
  'x\\y',
  'C:',
  ' ',
  '%2e%2e',
  '\uff0f',
  '\u2024',
  '\u200b',
  '\ud800',
];

/** Path strings biased toward the separators, dots and names the rules and the writer must get right. */
const hostilePath = fc
  .tuple(fc.array(fc.constantFrom(...pieces), { maxLength: 6 }), fc.constantFrom('/', '//', '\\', '/./'))
  .map(([parts, separator]) => parts.join(separator));

/** Mostly valid paths that start at one of the tree's traps: symlinks to outside, a file used as a directory. */
const trapPath = fc
  .tuple(
    fc.constantFrom('escape', 'dir/inner-escape', 'file.txt', 'dir', './escape', 'dir//inner-escape'),
    fc.array(fc.constantFrom('a', 'f.txt', 'sentinel.txt', 'sub', 'x.txt', '..', '.git'), {
      minLength: 0,
      maxLength: 3,
    }),
  )
  .map(([trap, rest]) => [trap, ...rest].join('/'));

const codeUnit = fc.integer({ min: 0, max: 0xffff }).map((unit) => String.fromCharCode(unit));

const anyPath = fc.oneof(
  trapPath,
  hostilePath,
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: codeUnit, maxLength: 20 }),
);

async function isRealPathInside(realRoot: string, relative: string): Promise<boolean> {
  let current = realRoot;
  for (const component of relative.split('/')) {
    current = join(current, component);
    if ((await lstat(current)).isSymbolicLink()) return false;
  }
  return (await lstat(current)).isFile();
}

describe.each<[Confinement, number]>([
  ['proc-fd', atScale(100, 400)],
  ['lstat-walk', atScale(50, 200)],
])('ConfinedRoot property (%s)', (confinement, numRuns) => {
  it('writes inside the workspace or refuses, and never changes the outside tree', async () => {
    await fc.assert(
      fc.asyncProperty(anyPath, fc.uint8Array({ maxLength: 64 }), async (declared, bytes) => {
        const fixture = await createWorkspaceFixture();
        try {
          await symlink(fixture.outside, join(fixture.root, 'escape'));
          await mkdir(join(fixture.root, 'dir'));
          await symlink('../../outside', join(fixture.root, 'dir/inner-escape'));
          await writeFile(join(fixture.root, 'file.txt'), 'workspace file\n');
          const rootTreeLinks = (await snapshotTree(fixture.root)).filter(
            (entry) => entry.kind === 'symlink',
          );

          const root = await openConfinedRoot(fixture.root, { confinement });
          const unique = new Uint8Array([...bytes, 0xff, 0xfe]);
          const outcome = await root.write(declared, unique, { durability: 'none' });
          await root.close();

          expect(['written', 'refused']).toContain(outcome.status);
          if (outcome.status === 'written') {
            expect(await isRealPathInside(root.realPath, outcome.path)).toBe(true);
            expect(Buffer.from(await readFile(join(root.realPath, outcome.path))).equals(unique)).toBe(true);
          }
          await fixture.assertConfined();
          expect(await findTempFiles(fixture.root)).toEqual([]);
          const linksAfter = (await snapshotTree(fixture.root)).filter((entry) => entry.kind === 'symlink');
          expect(linksAfter).toEqual(rootTreeLinks);
        } finally {
          await rm(fixture.base, { recursive: true, force: true });
        }
      }),
      { numRuns },
    );
  });
});
