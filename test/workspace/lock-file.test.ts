import { spawnSync } from 'node:child_process';
import { readFile, readdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  createLockFile,
  isProcessAlive,
  releaseLockIfOurs,
  removeStaleLock,
} from '../../src/workspace/locks/lock-file.js';
import { tempProject } from '../helpers/temp-project.js';

describe('lock-file primitives', () => {
  it.each(['fsync', 'none'] as const)(
    'creates a lock once with its text, and refuses a second holder (%s)',
    async (durability) => {
      const dir = await tempProject();
      const file = path.join(dir, 'lock');
      expect(await createLockFile(file, 'first', { durability })).toBe(true);
      expect(await createLockFile(file, 'second', { durability })).toBe(false);
      expect(await readFile(file, 'utf8')).toBe('first');
    },
  );

  it('never creates a lock through a symlink planted at its name', async () => {
    const dir = await tempProject({ 'target.txt': 'untouched' });
    await symlink(path.join(dir, 'target.txt'), path.join(dir, 'lock'));
    expect(await createLockFile(path.join(dir, 'lock'), 'holder', { durability: 'none' })).toBe(false);
    expect(await readFile(path.join(dir, 'target.txt'), 'utf8')).toBe('untouched');
  });

  it('tells a live process from one that has exited', () => {
    expect(isProcessAlive(process.pid)).toBe(true);
    const child = spawnSync(process.execPath, ['-e', '0']);
    expect(child.status).toBe(0);
    expect(isProcessAlive(child.pid)).toBe(false);
  });

  it('removes a stale lock that still holds the judged text, and leaves nothing aside', async () => {
    const dir = await tempProject({ lock: 'old holder' });
    expect(await removeStaleLock(path.join(dir, 'lock'), 'old holder')).toBe(true);
    expect(await readdir(dir)).toEqual([]);
  });

  it('puts back a lock another process took in between, and reports it was not removed', async () => {
    const dir = await tempProject({ lock: 'new holder' });
    expect(await removeStaleLock(path.join(dir, 'lock'), 'old holder')).toBe(false);
    expect(await readFile(path.join(dir, 'lock'), 'utf8')).toBe('new holder');
    expect(await readdir(dir)).toEqual(['lock']);
  });

  it('finds nothing to remove when the lock is already gone', async () => {
    const dir = await tempProject();
    expect(await removeStaleLock(path.join(dir, 'lock'), 'old holder')).toBe(false);
  });

  it('releases only its own lock', async () => {
    const dir = await tempProject({ lock: 'theirs' });
    const file = path.join(dir, 'lock');
    await releaseLockIfOurs(file, 'ours');
    expect(await readFile(file, 'utf8')).toBe('theirs');
    await writeFile(file, 'ours');
    await releaseLockIfOurs(file, 'ours');
    expect(await readdir(dir)).toEqual([]);
    await expect(releaseLockIfOurs(file, 'ours')).resolves.toBeUndefined();
  });
});
