import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { inspectDirectoryChain, lstatOrMissing } from '../../src/workspace/index.js';

const made: string[] = [];

async function base(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'dir-chain-'));
  made.push(dir);
  await mkdir(path.join(dir, '.agent', 'runs', 'run-1'), { recursive: true });
  return dir;
}

afterEach(async () => {
  await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

describe('inspectDirectoryChain', () => {
  it('accepts a chain of real directories', async () => {
    expect(await inspectDirectoryChain(await base(), '.agent/runs/run-1')).toBeUndefined();
  });

  it('names the first missing component', async () => {
    expect(await inspectDirectoryChain(await base(), '.agent/runs/run-2/x')).toEqual({
      kind: 'missing',
      at: '.agent/runs/run-2',
    });
  });

  it('refuses a symlink on the way without following it, even to a real directory', async () => {
    const dir = await base();
    const elsewhere = await mkdtemp(path.join(tmpdir(), 'dir-chain-out-'));
    made.push(elsewhere);
    await mkdir(path.join(elsewhere, 'run-3'));
    await symlink(path.join(elsewhere, 'run-3'), path.join(dir, '.agent', 'runs', 'run-3'));
    expect(await inspectDirectoryChain(dir, '.agent/runs/run-3')).toEqual({
      kind: 'symlink',
      at: '.agent/runs/run-3',
    });
  });

  it('refuses a file where a directory should be', async () => {
    const dir = await base();
    await writeFile(path.join(dir, '.agent', 'runs', 'run-4'), 'x');
    expect(await inspectDirectoryChain(dir, '.agent/runs/run-4')).toEqual({
      kind: 'not_a_directory',
      at: '.agent/runs/run-4',
    });
  });
});

describe('lstatOrMissing', () => {
  it('is undefined for a missing entry and for a path through a file (ENOTDIR)', async () => {
    const dir = await base();
    await writeFile(path.join(dir, 'file'), 'x');
    expect(await lstatOrMissing(path.join(dir, 'nothing'))).toBeUndefined();
    expect(await lstatOrMissing(path.join(dir, 'file', 'below'))).toBeUndefined();
    expect((await lstatOrMissing(path.join(dir, 'file')))?.isFile()).toBe(true);
  });
});
