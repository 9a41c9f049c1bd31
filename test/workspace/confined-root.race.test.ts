import { spawn } from 'node:child_process';
import { lstat, mkdir, readdir, readFile, rename, symlink, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openConfinedRoot } from '../../src/workspace/confined-root.js';
import type { ConfinedRoot, Confinement } from '../../src/workspace/confined-root-types.js';
import type { WriteStep } from '../../src/workspace/confined-write-options.js';
import { WorkspaceError } from '../../src/workspace/workspace-error.js';
import {
  createWorkspaceFixture,
  openRootPerTest,
  findTempFiles,
  withinMs,
} from '../helpers/workspace-fixture.js';
import type { WorkspaceFixture } from '../helpers/workspace-fixture.js';

const bytesOf = (text: string): Uint8Array => new TextEncoder().encode(text);

describe.each<Confinement>(['proc-fd', 'lstat-walk'])(
  'ConfinedRoot races planted with onStep (%s)',
  (confinement) => {
    let fixture: WorkspaceFixture;
    let root: ConfinedRoot;
    openRootPerTest(confinement, (opened) => {
      ({ fixture, root } = opened);
    });

    const inRoot = (path: string): string => join(fixture.root, path);

    it('swapping an opened directory for a symlink to outside changes nothing outside', async () => {
      await mkdir(inRoot('a/b'), { recursive: true });
      const swapOnce = async (step: WriteStep): Promise<void> => {
        if (step.stage !== 'directory-opened' || step.directory !== 'a') return;
        await rename(inRoot('a'), inRoot('a-real'));
        await symlink(fixture.outside, inRoot('a'));
      };
      // outside/sub/f.txt exists, so a writer that followed the swapped link would overwrite it.
      await mkdir(inRoot('a/sub'));
      const outcome = await root.write('a/sub/f.txt', bytesOf('pwned'), { onStep: swapOnce });
      expect(outcome).toMatchObject({ status: 'refused', code: 'symlink' });
      expect(await readdir(inRoot('a-real/sub'))).toEqual([]);
    });

    it('replaces a symlink planted at the target after the check instead of following it', async () => {
      await writeFile(inRoot('t.txt'), 'old\n');
      const plant = async (step: WriteStep): Promise<void> => {
        if (step.stage !== 'target-checked') return;
        await unlink(inRoot('t.txt'));
        await symlink(join(fixture.outside, 'sentinel.txt'), inRoot('t.txt'));
      };
      expect(await root.write('t.txt', bytesOf('new\n'), { onStep: plant })).toMatchObject({
        status: 'written',
      });
      expect((await lstat(inRoot('t.txt'))).isFile()).toBe(true);
      expect(await readFile(inRoot('t.txt'), 'utf8')).toBe('new\n');
    });
  },
);

describe('ConfinedRoot race past the last check (proc-fd)', () => {
  let fixture: WorkspaceFixture;
  let root: ConfinedRoot;

  beforeEach(async () => {
    fixture = await createWorkspaceFixture();
    root = await openConfinedRoot(fixture.root, { confinement: 'proc-fd' });
  });

  afterEach(async () => {
    try {
      await root.close();
      await fixture.assertConfined();
    } finally {
      await fixture.cleanup();
    }
  });

  it('catches a directory moved outside the root just before the rename and removes the file', async () => {
    const elsewhere = join(fixture.base, 'elsewhere');
    await mkdir(elsewhere);
    await mkdir(join(fixture.root, 'a'));
    await writeFile(join(fixture.root, 'a/keep.txt'), 'keep\n');
    const moveOut = async (step: WriteStep): Promise<void> => {
      if (step.stage === 'before-rename') await rename(join(fixture.root, 'a'), join(elsewhere, 'a'));
    };
    const outcome = await root.write('a/f.txt', bytesOf('escaped'), { onStep: moveOut });
    expect(outcome).toMatchObject({ status: 'refused', code: 'symlink' });
    expect(outcome.status === 'refused' ? outcome.message : '').toContain('concurrent swap');
    expect(await readdir(join(elsewhere, 'a'))).toEqual(['keep.txt']);
  });

  it('catches a directory moved outside right after the rename', async () => {
    const elsewhere = join(fixture.base, 'elsewhere');
    await mkdir(elsewhere);
    await mkdir(join(fixture.root, 'a'));
    const moveOut = async (step: WriteStep): Promise<void> => {
      if (step.stage === 'renamed') await rename(join(fixture.root, 'a'), join(elsewhere, 'a'));
    };
    expect(await root.write('a/f.txt', bytesOf('escaped'), { onStep: moveOut })).toMatchObject({
      code: 'symlink',
    });
    expect(await readdir(join(elsewhere, 'a'))).toEqual([]);
  });

  it('still removes the file when onStep throws after moving the directory out', async () => {
    const elsewhere = join(fixture.base, 'elsewhere');
    await mkdir(join(elsewhere), { recursive: true });
    await mkdir(join(fixture.root, 'a'));
    const moveOutAndThrow = async (step: WriteStep): Promise<void> => {
      if (step.stage !== 'renamed') return;
      await rename(join(fixture.root, 'a'), join(elsewhere, 'a'));
      throw new Error('tracer failed');
    };
    await expect(root.write('a/f.txt', bytesOf('escaped'), { onStep: moveOutAndThrow })).rejects.toThrow(
      'tracer failed',
    );
    expect(await readdir(join(elsewhere, 'a'))).toEqual([]);
  });
});

/** Child process: for about a second, keep swapping workspace/d with a symlink to outside, then stop by itself. */
const swapperScript = `
const fs = require('node:fs');
const [dir, away, outside] = process.argv.slice(1);
const end = Date.now() + 1000;
process.stdout.write('ready\\n');
for (let i = 0; i < 1e6 && Date.now() < end; i += 1) {
  try { fs.renameSync(dir, away); } catch {}
  try { fs.symlinkSync(outside, dir); } catch {}
  for (let spin = 0; spin < 2000; spin += 1);
  try { if (fs.lstatSync(dir).isSymbolicLink()) fs.unlinkSync(dir); } catch {}
  try { fs.renameSync(away, dir); } catch {}
}
`;

describe('ConfinedRoot under a real concurrent swapper (proc-fd)', () => {
  let fixture: WorkspaceFixture;

  beforeEach(async () => {
    fixture = await createWorkspaceFixture();
  });

  afterEach(async () => {
    try {
      await fixture.assertConfined();
    } finally {
      await fixture.cleanup();
    }
  });

  it('never changes outside while a child process swaps a directory 200 writes long', async () => {
    await mkdir(join(fixture.root, 'd'));
    const child = spawn(
      process.execPath,
      ['-e', swapperScript, join(fixture.root, 'd'), join(fixture.root, 'd.away'), fixture.outside],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    const root = await openConfinedRoot(fixture.root, { confinement: 'proc-fd' });
    const tally = new Map<string, number>();
    try {
      await withinMs(new Promise((resolve) => child.stdout.once('data', resolve)), 5_000);
      for (let attempt = 0; attempt < 200; attempt += 1) {
        let result: string;
        try {
          const outcome = await root.write('d/f.txt', bytesOf(`write ${attempt}\n`));
          result = outcome.status === 'refused' ? `refused:${outcome.code}` : outcome.status;
        } catch (error) {
          if (!(error instanceof WorkspaceError)) throw error;
          result = `error:${error.code}`;
        }
        tally.set(result, (tally.get(result) ?? 0) + 1);
      }
      expect(await withinMs(exited, 5_000)).toBe(0);
    } finally {
      child.kill();
      await root.close();
    }
    const results = [...tally.keys()];
    expect(
      results.every((result) => /^(written|refused:symlink|refused:not_a_directory|error:)/.test(result)),
    ).toBe(true);
    expect(await findTempFiles(fixture.root)).toEqual([]);
  }, 20_000);
});
