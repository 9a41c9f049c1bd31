import { lstat, mkdir, readFile, readdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ConfinedRoot, Confinement } from '../../src/workspace/confined-root-types.js';
import type { StagingFolder } from '../../src/workspace/confined-root-types.js';
import { openRootPerTest } from '../helpers/workspace-fixture.js';
import type { WorkspaceFixture } from '../helpers/workspace-fixture.js';

const bytesOf = (text: string): Uint8Array => new TextEncoder().encode(text);

describe.each<Confinement>(['proc-fd', 'lstat-walk'])('ConfinedRoot.stage (%s)', (confinement) => {
  let fixture: WorkspaceFixture;
  let root: ConfinedRoot;
  openRootPerTest(confinement, (opened) => {
    ({ fixture, root } = opened);
  });

  const inRoot = (path: string): string => join(fixture.root, path);

  async function stage(target: string): Promise<StagingFolder> {
    const staging = await root.stage(target);
    if ('status' in staging) throw new Error(staging.message);
    return staging;
  }

  it('shows nothing at the target until publish, then the whole folder, and leaves no staging folder', async () => {
    const staging = await stage('.agent/runs/r1');
    await staging.files.write('events.jsonl', bytesOf('{}\n'));
    await staging.files.write('manifests/plan.json', bytesOf('{"a":1}\n'));
    expect(await staging.files.makeDirectory('empty/inner')).toMatchObject({ status: 'written' });
    await expect(lstat(inRoot('.agent/runs/r1'))).rejects.toMatchObject({ code: 'ENOENT' });

    expect(await staging.publish()).toEqual({
      status: 'published',
      path: '.agent/runs/r1',
      files: 2,
      removed: 0,
    });
    expect(await readFile(inRoot('.agent/runs/r1/manifests/plan.json'), 'utf8')).toBe('{"a":1}\n');
    expect((await lstat(inRoot('.agent/runs/r1/empty/inner'))).isDirectory()).toBe(true);
    expect(await readdir(inRoot('.agent/runs'))).toEqual(['r1']);
  });

  it('reports an existing target folder as exists and keeps it as it was', async () => {
    await mkdir(inRoot('runs/r1'), { recursive: true });
    await writeFile(inRoot('runs/r1/old.txt'), 'old\n');
    const staging = await stage('runs/r1');
    await staging.files.write('new.txt', bytesOf('new\n'));
    expect(await staging.publish()).toEqual({ status: 'exists', path: 'runs/r1' });
    expect(await readdir(inRoot('runs/r1'))).toEqual(['old.txt']);
    expect(await readdir(inRoot('runs'))).toEqual(['r1']);
  });

  it('replaces files one by one and removes the unstaged ones in files mode', async () => {
    await mkdir(inRoot('index/ab'), { recursive: true });
    await writeFile(inRoot('index/ab/kept.jsonl'), 'old\n');
    await writeFile(inRoot('index/ab/stale.jsonl'), 'stale\n');
    const staging = await stage('index');
    await staging.files.write('ab/kept.jsonl', bytesOf('new\n'));
    await staging.files.write('cd/added.jsonl', bytesOf('added\n'));
    expect(await staging.publish({ mode: 'files' })).toEqual({
      status: 'published',
      path: 'index',
      files: 2,
      removed: 1,
    });
    expect(await readFile(inRoot('index/ab/kept.jsonl'), 'utf8')).toBe('new\n');
    expect(await readFile(inRoot('index/cd/added.jsonl'), 'utf8')).toBe('added\n');
    await expect(lstat(inRoot('index/ab/stale.jsonl'))).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await readdir(fixture.root)).toEqual(['index']);
  });

  it('refuses a target whose parent is a symlink out of the root', async () => {
    await symlink(fixture.outside, inRoot('runs'));
    expect(await root.stage('runs/r1')).toMatchObject({ status: 'refused', code: 'symlink' });
  });

  it('never publishes files through a symlinked folder inside the target', async () => {
    await mkdir(inRoot('index'));
    await symlink(fixture.outside, inRoot('index/ab'));
    const staging = await stage('index');
    await staging.files.write('ab/sentinel.txt', bytesOf('replaced\n'));
    expect(await staging.publish({ mode: 'files' })).toMatchObject({ status: 'refused', code: 'symlink' });
    expect(await readdir(inRoot('index'))).toEqual(['ab']);
  });

  it('discard removes the staging folder and everything in it', async () => {
    const staging = await stage('runs/r1');
    await staging.files.write('a.txt', bytesOf('a\n'));
    await staging.discard();
    await staging.discard();
    expect(await readdir(inRoot('runs'))).toEqual([]);
    await expect(staging.publish()).rejects.toThrow(/after publish\(\) or discard\(\)/);
  });
});
