import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { acquireShortLock, readLiveShortLockOwner } from '../../src/workspace/index.js';

/** The pid of a process that has already exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
    encoding: 'utf8',
  });
  return Number(child.stdout);
}

const ownerText = (pid: number, host = hostname()): string =>
  `${JSON.stringify({ pid, hostname: host, acquired_at: '2026-01-01T00:00:00.000Z', token: 't' })}\n`;

describe('readLiveShortLockOwner', () => {
  it('returns the owner of a lock a live process holds, and nothing once it is released', async () => {
    const file = path.join(await mkdtemp(path.join(tmpdir(), 'short-lock-')), 'x.lock');
    const attempt = await acquireShortLock(file, { waitMs: 1000 });
    expect(attempt.acquired).toBe(true);
    if (!attempt.acquired) return;
    expect(await readLiveShortLockOwner(file)).toEqual(attempt.lock.owner);
    await attempt.lock.release();
    expect(await readLiveShortLockOwner(file)).toBeUndefined();
  });

  it.each([
    ['a dead process on this host', ownerText(deadPid())],
    ['half-written text', '{"pid":'],
  ])('returns nothing for a lock held by %s', async (_name, text) => {
    const file = path.join(await mkdtemp(path.join(tmpdir(), 'short-lock-')), 'x.lock');
    await writeFile(file, text);
    expect(await readLiveShortLockOwner(file)).toBeUndefined();
  });
});

describe('a short lock whose release did not land', () => {
  it('is taken over by this same process, and a lock it still holds is waited for, not taken', async () => {
    const file = path.join(await mkdtemp(path.join(tmpdir(), 'short-lock-')), 'x.lock');
    const first = await acquireShortLock(file, { waitMs: 0 });
    if (!first.acquired) throw new Error('not acquired');
    // While held, another call of this process waits and gives up: the holder is live.
    expect(await acquireShortLock(file, { waitMs: 30 })).toMatchObject({ acquired: false });
    // A release that never reached the lock (a remote's connection reset): the file stays, naming this process.
    const lost = await readFile(file, 'utf8');
    await first.lock.release();
    await writeFile(file, lost);
    expect(await readLiveShortLockOwner(file)).toBeUndefined();
    const second = await acquireShortLock(file, { waitMs: 0 });
    expect(second.acquired && second.lock.tookOver).toEqual(first.lock.owner);
  });
});
