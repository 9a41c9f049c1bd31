import { spawn } from 'node:child_process';
import { mkdir, readdir, readFile, symlink, utimes, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseRunId } from '../../../src/project/index.js';
import { RunError } from '../../../src/runtime/run/run-error.js';
import { runGraph } from '../../../src/runtime/run/run-graph.js';
import { acquireRunLock, isRunLocked } from '../../../src/runtime/run/state/run-lock.js';
import { tempProject } from '../../helpers/temp-project.js';
import {
  agentsOf,
  defineGraph,
  exists,
  readState,
  sleep,
  testAgent,
  waitFor,
} from './fixtures/run-graph-fixtures.js';

const lockFile = (projectDir: string, runId: string) => path.join(projectDir, '.agent/runs', runId, 'lock');

/** The pid of a process that has exited (and been reaped). */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((resolve) => child.on('close', resolve));
  if (child.pid === undefined) throw new Error('no pid');
  return child.pid;
}

async function plantLock(projectDir: string, runId: string, content: string): Promise<void> {
  await mkdir(path.dirname(lockFile(projectDir, runId)), { recursive: true });
  await writeFile(lockFile(projectDir, runId), content);
}

describe('acquireRunLock', () => {
  it('creates the lock with pid, hostname and start time, and release removes it', async () => {
    const projectDir = await tempProject();
    const lock = await acquireRunLock(projectDir, parseRunId('r1'), new Date('2025-06-01T00:00:00.000Z'));
    expect(lock.path).toBe('.agent/runs/r1/lock');
    expect(lock.tookOver).toBeUndefined();
    expect(JSON.parse(await readFile(lockFile(projectDir, 'r1'), 'utf8'))).toEqual({
      pid: process.pid,
      hostname: hostname(),
      started_at: '2025-06-01T00:00:00.000Z',
    });
    expect(await isRunLocked(projectDir, parseRunId('r1'))).toBe(true);
    await lock.release();
    expect(await exists(lockFile(projectDir, 'r1'))).toBe(false);
    expect(await isRunLocked(projectDir, parseRunId('r1'))).toBe(false);
  });

  it('refuses a second runner while the holder is alive', async () => {
    const projectDir = await tempProject();
    const lock = await acquireRunLock(projectDir, parseRunId('r1'));
    const second = acquireRunLock(projectDir, parseRunId('r1'));
    await expect(second).rejects.toThrow(RunError);
    await expect(second).rejects.toThrow(`run r1 is already running (pid ${String(process.pid)} since`);
    await lock.release();
    await (await acquireRunLock(projectDir, parseRunId('r1'))).release();
  });

  it('takes over a stale lock whose process is gone', async () => {
    const projectDir = await tempProject();
    const pid = await deadPid();
    const stale = { pid, hostname: hostname(), started_at: '2025-01-01T00:00:00.000Z' };
    await plantLock(projectDir, 'r1', JSON.stringify(stale));
    expect(await isRunLocked(projectDir, parseRunId('r1'))).toBe(false);

    const lock = await acquireRunLock(projectDir, parseRunId('r1'));
    expect(lock.tookOver).toEqual(stale);
    expect(JSON.parse(await readFile(lockFile(projectDir, 'r1'), 'utf8'))).toMatchObject({
      pid: process.pid,
    });
    expect((await readdir(path.dirname(lockFile(projectDir, 'r1')))).sort()).toEqual(['lock']);
    await lock.release();
  });

  it('refuses a lock held on another host, saying how to clear it', async () => {
    const projectDir = await tempProject();
    await plantLock(
      projectDir,
      'r1',
      JSON.stringify({ pid: 1, hostname: 'elsewhere.example', started_at: 'x' }),
    );
    await expect(acquireRunLock(projectDir, parseRunId('r1'))).rejects.toThrow(
      /locked by pid 1 on host elsewhere\.example since x; .*delete \.agent\/runs\/r1\/lock and resume again/,
    );
  });

  it('treats a fresh half-written lock as held and an old one as stale', async () => {
    const projectDir = await tempProject();
    await plantLock(projectDir, 'r1', '');
    await expect(acquireRunLock(projectDir, parseRunId('r1'))).rejects.toThrow(
      /is being created by another runner/,
    );
    const old = new Date(Date.now() - 60_000);
    await utimes(lockFile(projectDir, 'r1'), old, old);
    const lock = await acquireRunLock(projectDir, parseRunId('r1'));
    expect(lock.tookOver).toBeUndefined();
    await lock.release();
  });

  it('does not remove a lock that another runner took over', async () => {
    const projectDir = await tempProject();
    const lock = await acquireRunLock(projectDir, parseRunId('r1'));
    const other = JSON.stringify({ pid: process.pid, hostname: hostname(), started_at: 'later' });
    await writeFile(lockFile(projectDir, 'r1'), other);
    await lock.release();
    expect(await readFile(lockFile(projectDir, 'r1'), 'utf8')).toBe(other);
  });

  it('refuses a run folder that is a symlink', async () => {
    const projectDir = await tempProject();
    const outside = await tempProject();
    await mkdir(path.join(projectDir, '.agent/runs'), { recursive: true });
    await symlink(outside, path.join(projectDir, '.agent/runs/r1'));
    await expect(acquireRunLock(projectDir, parseRunId('r1'))).rejects.toThrow(
      /\.agent\/runs\/r1 is a symlink/,
    );
    expect(await readdir(outside)).toEqual([]);
  });
});

describe('the run lock in runGraph', () => {
  it('refuses a second runner on a live run, and releases the lock when the run ends', async () => {
    const projectDir = await tempProject();
    let release = (): void => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const holding = testAgent('holding', async () => {
      await held;
      return '# done\n';
    });
    const graph = defineGraph('held', [
      { id: 'a', type: 'agent_task', agent: 'holding', prompt: 'p', outputPath: 'docs/a.md' },
    ]);
    const first = runGraph({ projectDir, graph, inputs: {}, agentFor: agentsOf(holding), runId: 'live' });
    try {
      await waitFor('node a running', async () => {
        try {
          return (await readState(projectDir, 'live')).nodes.a?.status === 'running';
        } catch {
          return false;
        }
      });
      const second = runGraph({
        projectDir,
        graph,
        inputs: {},
        agentFor: agentsOf(holding),
        runId: 'live',
        resume: true,
      });
      await expect(second).rejects.toThrow(
        /run live is already running \(pid \d+ since .*\); wait for it to finish/,
      );
      expect(await isRunLocked(projectDir, parseRunId('live'))).toBe(true);
    } finally {
      release();
    }
    expect((await first).status).toBe('completed');
    expect(await exists(lockFile(projectDir, 'live'))).toBe(false);

    // A failing run releases its lock too.
    const failing = testAgent('holding', async () => {
      await sleep(1);
      throw new Error('boom');
    });
    const failed = await runGraph({
      projectDir,
      graph,
      inputs: {},
      agentFor: agentsOf(failing),
      runId: 'bad',
    });
    expect(failed.state.nodes.a?.error).toEqual({
      code: 'agent_error',
      message: 'agent holding failed: boom',
    });
    expect(await exists(lockFile(projectDir, 'bad'))).toBe(false);
  });
});
