import { spawnSync } from 'node:child_process';
import { mkdir, readdir, readFile, symlink, utimes, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseRunId } from '../../../src/project/index.js';
import { acquireStateLock } from '../../../src/workflow/state/acquire-state-lock.js';
import { workflowStateLockPath } from '../../../src/workflow/index.js';
import { tempProject } from '../../helpers/temp-project.js';

const runId = parseRunId('wf-1');
const lockRelative = workflowStateLockPath(runId);

/** The pid of a process that has already exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
    encoding: 'utf8',
  });
  return Number(child.stdout);
}

const ownerText = (pid: number, host = hostname()): string =>
  `${JSON.stringify({ pid, hostname: host, acquired_at: '2026-01-01T00:00:00.000Z', token: 'old' })}\n`;

async function projectWithLock(text: string | null, ageMs = 0): Promise<string> {
  const projectDir = await tempProject({ '.agent/runs/wf-1/state.json': '{}' });
  if (text !== null) {
    const file = path.join(projectDir, lockRelative);
    await writeFile(file, text);
    const when = new Date(Date.now() - ageMs);
    await utimes(file, when, when);
  }
  return projectDir;
}

describe('acquireStateLock', () => {
  it('creates the lock with its owner and removes it on release', async () => {
    const projectDir = await projectWithLock(null);
    const lock = await acquireStateLock(projectDir, runId);
    const onDisk = JSON.parse(await readFile(path.join(projectDir, lockRelative), 'utf8')) as unknown;
    expect(onDisk).toEqual(lock.owner);
    expect(lock.owner).toMatchObject({ pid: process.pid, hostname: hostname() });
    expect(await lock.isHeld()).toBe(true);
    await lock.release();
    expect(await readdir(path.join(projectDir, '.agent/runs/wf-1'))).toEqual(['state.json']);
  });

  it.each([
    ['a dead process on this host', ownerText(deadPid()), 0, true],
    ['another host, long ago', ownerText(1, 'elsewhere.example'), 120_000, true],
    ['a half-written lock, long ago', '{"pid": 4', 10_000, false],
  ])('takes over a stale lock of %s', async (_, text, ageMs, reportsOwner) => {
    const projectDir = await projectWithLock(text, ageMs);
    const lock = await acquireStateLock(projectDir, runId, { waitMs: 100 });
    expect(lock.tookOver !== undefined).toBe(reportsOwner);
    expect(await lock.isHeld()).toBe(true);
    await lock.release();
  });

  it.each([
    ['a live process on this host', ownerText(process.ppid), 0],
    ['another host, just now', ownerText(1, 'elsewhere.example'), 0],
    ['a lock being written, just now', '', 0],
  ])('waits for a lock held by %s, then gives up with state_locked', async (_, text, ageMs) => {
    const projectDir = await projectWithLock(text, ageMs);
    const started = Date.now();
    const error = await acquireStateLock(projectDir, runId, { waitMs: 150 }).catch(
      (caught: unknown) => caught,
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect(error).toMatchObject({ code: 'state_locked' });
    expect((error as Error).message).toMatch(
      /^workflow run wf-1 is busy: \.agent\/runs\/wf-1\/state\.lock is held by .*; call workflow_status and retry$/,
    );
    expect(await readFile(path.join(projectDir, lockRelative), 'utf8')).toBe(text);
  });

  it('hands the lock to a waiter once the holder releases it', async () => {
    const projectDir = await projectWithLock(null);
    const first = await acquireStateLock(projectDir, runId);
    const second = acquireStateLock(projectDir, runId, { waitMs: 2_000 });
    setTimeout(() => void first.release(), 50);
    const lock = await second;
    expect(lock.owner.token).not.toBe(first.owner.token);
    expect(await first.isHeld()).toBe(false);
    await lock.release();
  });

  it('refuses a run folder that is a symlink', async () => {
    const projectDir = await tempProject();
    const elsewhere = await tempProject();
    await mkdir(path.join(projectDir, '.agent/runs'), { recursive: true });
    await symlink(elsewhere, path.join(projectDir, '.agent/runs/wf-1'));
    await expect(acquireStateLock(projectDir, runId)).rejects.toMatchObject({ code: 'run_dir_unusable' });
    expect(await readdir(elsewhere)).toEqual([]);
  });

  it('throws UnknownRunError for a run folder that does not exist', async () => {
    const projectDir = await tempProject();
    await expect(acquireStateLock(projectDir, runId)).rejects.toMatchObject({ code: 'unknown_run' });
  });
});
