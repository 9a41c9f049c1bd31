import { spawnSync } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
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
