import { spawnSync } from 'node:child_process';
import { lstat, mkdir, readFile, readdir, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openConfinedRoot } from '../../src/workspace/confined-root.js';
import type { ConfinedRoot, Confinement } from '../../src/workspace/confined-root-types.js';
import { STALE_TEMP_AGE_MS } from '../../src/workspace/remove-stale-temp-files.js';
import { TEMP_FILE_PATTERN, tempFileName } from '../../src/workspace/temp-file-name.js';
import { createWorkspaceFixture, snapshotTree } from '../helpers/workspace-fixture.js';
import type { WorkspaceFixture } from '../helpers/workspace-fixture.js';

const bytesOf = (text: string): Uint8Array => new TextEncoder().encode(text);
const STALE = '.artifact-ingest-0123456789abcdef.tmp';
const FRESH = '.artifact-ingest-fedcba9876543210.tmp';

/** Plants a file (or folder, or symlink) at `path` last modified `ageMs` ago. */
async function plant(path: string, ageMs: number, kind: 'file' | 'folder' = 'file'): Promise<void> {
  if (kind === 'folder') await mkdir(path);
  else await writeFile(path, 'half a write');
  const when = new Date(Date.now() - ageMs);
  await utimes(path, when, when);
}

const exists = (path: string): Promise<boolean> =>
  lstat(path).then(
    () => true,
    () => false,
  );

describe.each<Confinement>(['proc-fd', 'lstat-walk'])('stale temp files (%s)', (confinement) => {
  let fixture: WorkspaceFixture;
  let root: ConfinedRoot;
  beforeEach(async () => {
    fixture = await createWorkspaceFixture();
    root = await openConfinedRoot(fixture.root, { confinement });
  });
  afterEach(async () => {
    await root.close();
    expect(await snapshotTree(fixture.outside)).toEqual(fixture.outsideBefore);
    await fixture.cleanup();
  });

  it('removes a temp file older than an hour next to the target, and keeps a fresh one', async () => {
    await mkdir(join(fixture.root, 'src'));
    await plant(join(fixture.root, 'src', STALE), STALE_TEMP_AGE_MS + 60_000);
    await plant(join(fixture.root, 'src', FRESH), 1_000);

    expect(await root.write('src/a.ts', bytesOf('a'))).toMatchObject({ status: 'written' });

    expect((await readdir(join(fixture.root, 'src'))).sort()).toEqual([FRESH, 'a.ts']);
  });

  it('removes a fresh temp file whose name says its writer (a process of this host) is gone, and keeps a live one', async () => {
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
      encoding: 'utf8',
    });
    const ours = tempFileName();
    const killed = ours.replace(
      `-${process.pid.toString(16).padStart(8, '0')}-`,
      `-${Number(dead.stdout).toString(16).padStart(8, '0')}-`,
    );
    await plant(join(fixture.root, killed), 0);
    await plant(join(fixture.root, ours), 0);
    await root.write('a.txt', bytesOf('a'));
    expect((await readdir(fixture.root)).sort()).toEqual([ours, 'a.txt'].sort());
  });

  it('removes every temp file older than the cutoff a lock holder names, however young', async () => {
    await plant(join(fixture.root, STALE), 5_000);
    await root.write('a.txt', bytesOf('a'), { staleTempBefore: Date.now() - 1_000 });
    expect(await exists(join(fixture.root, STALE))).toBe(false);
  });

  it('leaves old entries alone that are not its temp files: other names, folders, symlinks', async () => {
    const oldAge = STALE_TEMP_AGE_MS * 2;
    await plant(join(fixture.root, '.artifact-ingest-0123.tmp'), oldAge);
    await plant(join(fixture.root, 'notes.tmp'), oldAge);
    await plant(join(fixture.root, FRESH), oldAge, 'folder');
    // A symlink named like a temp file, to a file outside: neither the link nor its target may go.
    await symlink(join(fixture.outside, 'sentinel.txt'), join(fixture.root, STALE));

    await root.write('a.txt', bytesOf('a'), { staleTempBefore: Date.now() });

    expect((await readdir(fixture.root)).sort()).toEqual(
      ['.artifact-ingest-0123.tmp', STALE, FRESH, 'a.txt', 'notes.tmp'].sort(),
    );
    expect((await lstat(join(fixture.root, STALE))).isSymbolicLink()).toBe(true);
  });

  it('never removes the temp file of a live writer paused between its write and its rename', async () => {
    let release: () => void = () => undefined;
    let paused: () => void = () => undefined;
    const reachedRename = new Promise<void>((resolve) => (paused = resolve));
    const held = new Promise<void>((resolve) => (release = resolve));
    const slow = root.write('shared/slow.txt', bytesOf('slow'), {
      onStep: async (step) => {
        if (step.stage !== 'before-rename') return;
        paused();
        await held;
      },
    });
    await reachedRename;
    const [live] = (await readdir(join(fixture.root, 'shared'))).filter((name) =>
      TEMP_FILE_PATTERN.test(name),
    );
    expect(live).toBeDefined();

    // The hour rule: a writer without the workspace lock sees the other's young temp file and leaves it.
    expect(await root.write('shared/quick.txt', bytesOf('quick'))).toMatchObject({ status: 'written' });
    expect(await exists(join(fixture.root, 'shared', live ?? ''))).toBe(true);

    release();
    expect(await slow).toMatchObject({ status: 'written' });
    expect(await readFile(join(fixture.root, 'shared/slow.txt'), 'utf8')).toBe('slow');
    expect((await readdir(join(fixture.root, 'shared'))).sort()).toEqual(['quick.txt', 'slow.txt']);
  });

  it('reads a folder once per cutoff, not once per write', async () => {
    await root.write('a.txt', bytesOf('a'));
    // Planted after the sweep of the hour rule: the next write under the same rule does not read the folder again.
    await plant(join(fixture.root, STALE), STALE_TEMP_AGE_MS + 60_000);
    await root.write('b.txt', bytesOf('b'));
    expect(await exists(join(fixture.root, STALE))).toBe(true);
    // A new cutoff (the next ingest's lock) sweeps again.
    await root.write('c.txt', bytesOf('c'), { staleTempBefore: Date.now() });
    expect(await exists(join(fixture.root, STALE))).toBe(false);
  });

  it('removes nothing on a dry run', async () => {
    await plant(join(fixture.root, STALE), STALE_TEMP_AGE_MS + 60_000);
    await root.write('a.txt', bytesOf('a'), { dryRun: true, staleTempBefore: Date.now() });
    expect(await exists(join(fixture.root, STALE))).toBe(true);
    await root.write('a.txt', bytesOf('a'));
  });

  it('sweepTempFiles removes a dead writer’s temp file from a folder without writing into it; a missing folder holds none', async () => {
    await mkdir(join(fixture.root, 'objects/ab'), { recursive: true });
    await plant(join(fixture.root, 'objects/ab', deadWritersName()), 0);
    await plant(join(fixture.root, 'objects/ab', STALE), STALE_TEMP_AGE_MS + 60_000);
    await plant(join(fixture.root, 'objects/ab', FRESH), 1_000);
    await plant(join(fixture.root, 'objects/ab/kept.txt'), STALE_TEMP_AGE_MS + 60_000);

    expect(await root.sweepTempFiles('objects/ab')).toBe(2);
    expect((await readdir(join(fixture.root, 'objects/ab'))).sort()).toEqual([FRESH, 'kept.txt']);
    expect(await root.sweepTempFiles('objects/cd')).toBe(0);
    expect(await root.sweepTempFiles('../outside')).toBe(0);
  });

  it('sweepTempFiles never sweeps through a symlinked folder', async () => {
    await plant(join(fixture.outside, STALE), STALE_TEMP_AGE_MS + 60_000);
    await symlink(fixture.outside, join(fixture.root, 'linked'));
    expect(await root.sweepTempFiles('linked')).toBe(0);
    expect(await exists(join(fixture.outside, STALE))).toBe(true);
    await rm(join(fixture.outside, STALE));
  });
});

/** A temp file name of this host whose writer (a process that ran and exited) is gone. */
function deadWritersName(): string {
  const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
    encoding: 'utf8',
  });
  return tempFileName().replace(
    `-${process.pid.toString(16).padStart(8, '0')}-`,
    `-${Number(dead.stdout).toString(16).padStart(8, '0')}-`,
  );
}
