import { execFileSync } from 'node:child_process';
import { mkdir, readdir, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openProjectStore } from '../../src/store/files-store.js';
import { StoreError } from '../../src/store/store-error.js';
import { tempProject } from '../helpers/temp-project.js';

// A session of the files store (openSession) against the real filesystem: the folders it keeps open, what it
// does when one of them is removed, moved or swapped for a symlink, and the folder replace beside it.

async function errorOf(call: Promise<unknown>): Promise<StoreError> {
  const error: unknown = await call.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(StoreError);
  return error as StoreError;
}

describe('a session of the files store', () => {
  it('writes each key at its path of the project folder, as the store does', async () => {
    const projectDir = await tempProject();
    const store = openProjectStore(projectDir);
    const session = await store.openSession();
    await session.append('.agent/runs/run-001/artifacts.jsonl', '{"n":1}\n');
    await session.append('.agent/index/paths/ab/cd.jsonl', '{"n":2}\n', { durability: 'none' });
    await session.append('.agent/index/runs.jsonl', '{"n":3}\n');
    await session.replace('.agent/top.json', '{}\n');
    await session.close();
    await store.close();
    const read = (relative: string): Promise<string> => readFile(path.join(projectDir, relative), 'utf8');
    expect(await read('.agent/runs/run-001/artifacts.jsonl')).toBe('{"n":1}\n');
    expect(await read('.agent/index/paths/ab/cd.jsonl')).toBe('{"n":2}\n');
    expect(await read('.agent/index/runs.jsonl')).toBe('{"n":3}\n');
    expect(await read('.agent/top.json')).toBe('{}\n');
  });

  it.each([
    ['the index folder', '.agent/index', '.agent/index/paths/ab/cd.jsonl'],
    ['a run folder', '.agent/runs/run-001', '.agent/runs/run-001/artifacts.jsonl'],
  ])('refuses %s planted as a symlink out of the project, writing nothing there', async (_, link, key) => {
    const projectDir = await tempProject();
    const outside = await tempProject();
    await mkdir(path.join(projectDir, link, '..'), { recursive: true });
    await symlink(outside, path.join(projectDir, link));
    const store = openProjectStore(projectDir);
    const session = await store.openSession();
    const error = await errorOf(session.append(key, 'x\n', { durability: 'none' }));
    expect(error.code).toBe('write_refused');
    expect(error.message).toMatch(/symlink/);
    expect((await errorOf(session.readFrom(key, 0))).code).toBe('not_a_file');
    await session.close();
    await store.close();
    expect(await readdir(outside)).toEqual([]);
  });

  it('fails one append into a kept folder that was removed, never retrying it, and makes the folder again on the next', async () => {
    const projectDir = await tempProject();
    const store = openProjectStore(projectDir);
    const session = await store.openSession();
    const key = '.agent/runs/run-001/artifacts.jsonl';
    await session.append(key, 'a\n', { durability: 'none' });
    await rm(path.join(projectDir, '.agent/runs/run-001'), { recursive: true });
    await expect(session.append(key, 'b\n', { durability: 'none' })).rejects.toThrow();
    await session.append(key, 'c\n', { durability: 'none' });
    await session.close();
    await store.close();
    expect(await readFile(path.join(projectDir, key), 'utf8')).toBe('c\n');
  });

  it('refuses an append into a kept folder that was moved away, writing nothing where it went', async () => {
    const projectDir = await tempProject();
    const store = openProjectStore(projectDir);
    const session = await store.openSession();
    const key = '.agent/runs/run-001/artifacts.jsonl';
    await session.append(key, 'a\n', { durability: 'none' });
    await rename(path.join(projectDir, '.agent/runs/run-001'), path.join(projectDir, 'moved'));
    await expect(session.append(key, 'b\n', { durability: 'none' })).rejects.toThrow(/moved|symlink/);
    expect(await readFile(path.join(projectDir, 'moved/artifacts.jsonl'), 'utf8')).toBe('a\n');
    await session.append(key, 'c\n', { durability: 'none' });
    await session.close();
    await store.close();
    expect(await readFile(path.join(projectDir, key), 'utf8')).toBe('c\n');
  });

  it('reads what is in a folder made again since it was kept, not the removed one', async () => {
    const projectDir = await tempProject();
    const store = openProjectStore(projectDir);
    const session = await store.openSession();
    await session.append('.agent/index/history/0.jsonl', '{"n":1}\n', { durability: 'none' });
    await rm(path.join(projectDir, '.agent/index/history'), { recursive: true });
    await mkdir(path.join(projectDir, '.agent/index/history'));
    await writeFile(path.join(projectDir, '.agent/index/history/segments.jsonl'), '{"seq":0}\n');
    expect(await session.readText('.agent/index/history/segments.jsonl')).toBe('{"seq":0}\n');
    expect(await session.info('.agent/index/history/0.jsonl')).toBeUndefined();
    await session.close();
    await store.close();
  });

  it('reads what is in a folder of the path index made again since a read kept it', async () => {
    const projectDir = await tempProject();
    const store = openProjectStore(projectDir);
    const session = await store.openSession();
    await session.append('.agent/index/paths/ab/cd.jsonl', '{"n":1}\n', { durability: 'none' });
    expect((await session.readFrom('.agent/index/paths/ab/cd.jsonl', 0))?.size).toBe(8);
    await rm(path.join(projectDir, '.agent/index/paths/ab'), { recursive: true });
    await mkdir(path.join(projectDir, '.agent/index/paths/ab'));
    await writeFile(path.join(projectDir, '.agent/index/paths/ab/ef.jsonl'), '{"n":2}\n');
    expect(await session.readText('.agent/index/paths/ab/ef.jsonl')).toBe('{"n":2}\n');
    expect(await session.readFrom('.agent/index/paths/ab/cd.jsonl', 0)).toBeUndefined();
    await session.close();
    await store.close();
  });

  it('refuses a FIFO in a kept folder without waiting on it', async () => {
    const projectDir = await tempProject();
    const store = openProjectStore(projectDir);
    const session = await store.openSession();
    await session.append('.agent/index/paths/ab/cd.jsonl', '{}\n', { durability: 'none' });
    execFileSync('mkfifo', [path.join(projectDir, '.agent/index/paths/ab/ef.jsonl')]);
    const error = await errorOf(session.readFrom('.agent/index/paths/ab/ef.jsonl', 0));
    expect(error.message).toContain('a FIFO, socket or device');
    expect(error.cause).toMatchObject({ code: 'EINVAL' });
    await session.close();
    await store.close();
  });
});

describe('the folder replace of the files store', () => {
  it('publishes through a staging folder beside the folder and leaves none behind', async () => {
    const projectDir = await tempProject({ '.agent/index/paths/aa/old.jsonl': 'old\n' });
    const store = openProjectStore(projectDir);
    let staged: string[] = [];
    await store.replaceFolder('.agent/index/paths', async (files) => {
      await files.write('.agent/index/paths/bb/new.jsonl', 'new\n');
      staged = await readdir(path.join(projectDir, '.agent/index'));
    });
    await store.close();
    expect(staged).toHaveLength(2);
    expect(staged[0]).toMatch(/^\.paths\.staging-[0-9a-f]{16}$/);
    expect(staged[1]).toBe('paths');
    expect(await readdir(path.join(projectDir, '.agent/index'))).toEqual(['paths']);
    expect(await readdir(path.join(projectDir, '.agent/index/paths/aa'))).toEqual([]);
    expect(await readFile(path.join(projectDir, '.agent/index/paths/bb/new.jsonl'), 'utf8')).toBe('new\n');
  });

  it('refuses a folder planted as a symlink, writing nothing outside', async () => {
    const outside = await tempProject({ 'aa/kept.jsonl': 'outside\n' });
    const projectDir = await tempProject();
    await mkdir(path.join(projectDir, '.agent/index'), { recursive: true });
    await symlink(outside, path.join(projectDir, '.agent/index/paths'));
    const store = openProjectStore(projectDir);
    const error = await errorOf(
      store.replaceFolder('.agent/index/paths', (files) =>
        files.write('.agent/index/paths/bb/new.jsonl', 'new\n'),
      ),
    );
    await store.close();
    expect(error.code).toBe('write_refused');
    expect(await readdir(outside)).toEqual(['aa']);
    expect(await readFile(path.join(outside, 'aa/kept.jsonl'), 'utf8')).toBe('outside\n');
  });
});
