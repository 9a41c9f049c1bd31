import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { holdWorkspaceLock } from '../../src/ingest/hold-workspace-lock.js';
import { tempProject } from '../helpers/temp-project.js';

const lockFile = (project: string): string => path.join(project, '.agent/workspace.lock');

describe('holdWorkspaceLock', () => {
  it('runs two holders of one process one after the other, never interleaved', async () => {
    const project = await tempProject();
    const trace: string[] = [];
    const work = (name: string) => async (): Promise<string> => {
      trace.push(`${name}:in`);
      await new Promise((resolve) => setTimeout(resolve, 30));
      trace.push(`${name}:out`);
      return name;
    };
    const results = await Promise.all([
      holdWorkspaceLock(project, work('a')),
      holdWorkspaceLock(project, work('b')),
      holdWorkspaceLock(project, work('c')),
    ]);
    expect(results.map((result) => result.outcome)).toEqual(['done', 'done', 'done']);
    for (let at = 0; at < trace.length; at += 2) {
      expect(trace[at]?.replace(':in', '')).toBe(trace[at + 1]?.replace(':out', ''));
    }
    await expect(readFile(lockFile(project))).rejects.toThrow(/ENOENT/);
  });

  it('creates .agent/, and tells the work when it took the lock', async () => {
    const project = await tempProject();
    const before = Date.now();
    const held = await holdWorkspaceLock(project, (lockedAt) => Promise.resolve(lockedAt));
    expect(held.outcome).toBe('done');
    if (held.outcome === 'done') expect(held.value).toBeGreaterThanOrEqual(before);
  });

  it('takes over the lock of a holder whose process is gone', async () => {
    const project = await tempProject();
    await mkdir(path.join(project, '.agent'));
    // pid 2^22 + 1 is above Linux's pid_max default: no such process.
    const dead = { pid: 4_194_305, hostname: hostname(), acquired_at: new Date().toISOString(), token: 'x' };
    await writeFile(lockFile(project), `${JSON.stringify(dead)}\n`);
    expect((await holdWorkspaceLock(project, () => Promise.resolve(1))).outcome).toBe('done');
  });

  it('gives up on a live holder after the wait, naming it, and runs nothing', async () => {
    const project = await tempProject();
    await mkdir(path.join(project, '.agent'));
    // A live process of this host other than this one (this process's own lock under a token it does not hold is
    // a release that did not land, taken over).
    const live = {
      pid: process.ppid,
      hostname: hostname(),
      acquired_at: new Date().toISOString(),
      token: 'y',
    };
    await writeFile(lockFile(project), `${JSON.stringify(live)}\n`);
    let ran = false;
    const held = await holdWorkspaceLock(
      project,
      () => {
        ran = true;
        return Promise.resolve();
      },
      { waitMs: 100 },
    );
    expect(held).toEqual({
      outcome: 'busy',
      reason: expect.stringMatching(`pid ${String(process.ppid)}`) as string,
    });
    expect(ran).toBe(false);
  });

  it('reports a lock that cannot be made when .agent is a file', async () => {
    const project = await tempProject({ '.agent': 'a file' });
    const held = await holdWorkspaceLock(project, () => Promise.resolve());
    expect(held).toEqual({
      outcome: 'unavailable',
      reason: expect.stringMatching(/workspace\.lock/) as string,
    });
  });
});

describe('holdWorkspaceLock between holders', () => {
  it('hands the lock on only in a later millisecond, so the next holder’s records sort after this one’s', async () => {
    const project = await tempProject();
    let finishedAt = 0;
    await holdWorkspaceLock(project, () => {
      finishedAt = Date.now();
      return Promise.resolve();
    });
    const next = await holdWorkspaceLock(project, (lockedAt) => Promise.resolve(lockedAt));
    expect(next.outcome === 'done' ? next.value : 0).toBeGreaterThan(finishedAt);
  });
});
