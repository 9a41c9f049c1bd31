// Two real server processes on one run: the compare-and-swap and the lock across processes, and a SIGKILL.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runStatePath } from '../../../src/project/index.js';
import {
  createWorkflowState,
  readWorkflowState,
  updateWorkflowState,
  workflowStateLockPath,
} from '../../../src/workflow/index.js';
import { tempProject } from '../../helpers/temp-project.js';
import { atScale } from '../../helpers/test-scale.js';
import { newState, spawnStateChild } from './fixtures/state-fixtures.js';
import type { StateChild } from './fixtures/state-fixtures.js';

const children: StateChild[] = [];
afterEach(async () => {
  for (const { child, exited } of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  }
});

async function spawn(projectDir: string, name: string): Promise<StateChild> {
  const child = await spawnStateChild(projectDir, name);
  children.push(child);
  return child;
}

describe('two processes advancing one workflow run', () => {
  it('lets exactly one win each round; the other gets state_conflict and nothing is lost', async () => {
    const projectDir = await tempProject();
    const { run_id: runId } = await createWorkflowState(projectDir, newState('wf-race'));
    const [left, right] = await Promise.all([spawn(projectDir, 'left'), spawn(projectDir, 'right')]);
    const rounds = atScale(10, 30);
    const winners: string[] = [];
    for (let round = 0; round < rounds; round += 1) {
      const { revision } = await readWorkflowState(projectDir, runId);
      const tag = `round-${String(round)}`;
      // Both start at the same instant, a little ahead so both are waiting for it.
      const at = Date.now() + 40;
      left.send({ op: 'advance', runId, expected: revision, tag, at });
      right.send({ op: 'advance', runId, expected: revision, tag, at });
      const replies = await Promise.all([left.next(), right.next()]);
      const won = replies.filter((reply) => reply.kind === 'won');
      const lost = replies.filter((reply) => reply.kind === 'lost');
      expect(won).toHaveLength(1);
      expect(lost).toHaveLength(1);
      expect(lost[0]).toMatchObject({ code: 'state_conflict' });
      expect(lost[0]?.kind === 'lost' && lost[0].message).toContain('call workflow_status and retry');
      expect(won[0]).toMatchObject({ revision: revision + 1 });
      winners.push(replies[0].kind === 'won' ? 'left' : 'right');
    }
    const state = await readWorkflowState(projectDir, runId);
    expect(state.revision).toBe(rounds);
    expect(Object.keys(state.outputs)).toHaveLength(rounds);
    // Each round's output was written by that round's winner, and by no one else.
    expect(Array.from({ length: rounds }, (_, round) => state.outputs[`round-${String(round)}`])).toEqual(
      winners,
    );
  });

  it('takes over the lock of a writer killed while holding it; the state is as before', async () => {
    const projectDir = await tempProject();
    const { run_id: runId } = await createWorkflowState(projectDir, newState('wf-held'));
    const before = await readFile(path.join(projectDir, runStatePath(runId)), 'utf8');
    const holder = await spawn(projectDir, 'holder');
    holder.send({ op: 'hold', runId });
    expect(await holder.next()).toEqual({ kind: 'holding' });
    const lockFile = path.join(projectDir, workflowStateLockPath(runId));
    expect(JSON.parse(await readFile(lockFile, 'utf8'))).toMatchObject({ pid: holder.child.pid });

    // While the holder lives, a caller waits and then gives up without writing.
    const busy = await updateWorkflowState(projectDir, runId, 0, (s) => s, { lockWaitMs: 300 }).catch(
      (error: unknown) => error,
    );
    expect(busy).toMatchObject({ code: 'state_locked' });
    expect((busy as Error).message).toContain(`held by pid ${String(holder.child.pid)}`);

    holder.child.kill('SIGKILL');
    await holder.exited;
    expect(await readFile(path.join(projectDir, runStatePath(runId)), 'utf8')).toBe(before);
    const next = await updateWorkflowState(projectDir, runId, 0, (current) => ({
      ...current,
      outputs: { scope: 'after the crash' },
    }));
    expect(next.revision).toBe(1);
    expect(await readdir(path.dirname(lockFile))).not.toContain('state.lock');
  });

  it('leaves a readable state when a writer is SIGKILLed in the middle of writing', async () => {
    const projectDir = await tempProject();
    const { run_id: runId } = await createWorkflowState(projectDir, newState('wf-churn'));
    for (let attempt = 0; attempt < atScale(2, 3); attempt += 1) {
      const writer = await spawn(projectDir, `churn-${String(attempt)}`);
      writer.send({ op: 'churn', runId });
      expect(await writer.next()).toMatchObject({ kind: 'churning' });
      // A random moment inside the stream of writes.
      await new Promise((resolve) => setTimeout(resolve, 20 + Math.random() * 80));
      writer.child.kill('SIGKILL');
      await writer.exited;
      const state = await readWorkflowState(projectDir, runId);
      expect(state.revision).toBeGreaterThan(3);
      // Its lock, if it died holding it, is taken over by the next call.
      const next = await updateWorkflowState(projectDir, runId, state.revision, (current) => current);
      expect(next.revision).toBe(state.revision + 1);
    }
  });
});
