import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseRunId } from '../../../src/project/index.js';
import { createRunStateStore } from '../../../src/runtime/run/state/run-state-store.js';
import { readRunState } from '../../../src/runtime/run/state/run-state.js';
import type { NodeState } from '../../../src/runs/index.js';
import { openProjectStore } from '../../../src/store/index.js';
import { tempProject } from '../../helpers/temp-project.js';

const runId = parseRunId('st');
const header = {
  version: 1 as const,
  run_id: runId,
  graph: { name: 'g', hash: 'a'.repeat(64), source: 'test:g' },
  mode: 'single' as const,
  inputs: {},
  ingest_enabled: false,
  created_at: '2025-06-01T12:00:00.000Z',
};
const pending: NodeState = { status: 'pending', attempts: 0 };

async function openStore() {
  const projectDir = await tempProject();
  const root = openProjectStore(projectDir);
  const nodes = new Map([
    ['a', pending],
    ['b', pending],
    ['c', pending],
  ]);
  const store = createRunStateStore(
    { store: root },
    header,
    nodes,
    () => new Date('2025-06-01T12:00:05.000Z'),
  );
  const files = {
    state: () => readFile(path.join(projectDir, '.agent/runs/st/state.json'), 'utf8'),
    log: () => readFile(path.join(projectDir, '.agent/runs/st/transitions.jsonl'), 'utf8'),
  };
  return { projectDir, root, store, files };
}

describe('the run state store', () => {
  it('appends one numbered line per changed node and leaves state.json as compacted', async () => {
    const { projectDir, root, store, files } = await openStore();
    try {
      await store.compact();
      const compacted = await files.state();
      store.setNode('a', { status: 'running', attempts: 1 });
      // Two commits made before either is written share one fdatasync and keep their order.
      const first = store.commit();
      store.setNode('a', { status: 'completed', attempts: 1 });
      store.setNode('b', { status: 'running', attempts: 1 });
      await Promise.all([first, store.commit()]);
      expect(await files.state()).toBe(compacted);
      const lines = (await files.log())
        .trimEnd()
        .split('\n')
        .map((text) => JSON.parse(text) as Record<string, unknown>);
      expect(lines.map((line) => line.seq)).toEqual([undefined, 1, 2, 3]);
      expect(lines.slice(1).map((line) => line.node)).toEqual(['a', 'a', 'b']);
      const state = await readRunState(projectDir, runId);
      expect(Object.fromEntries(Object.entries(state.nodes).map(([id, node]) => [id, node.status]))).toEqual({
        a: 'completed',
        b: 'running',
        c: 'pending',
      });
      expect(store.counts()).toEqual({ pending: 1, running: 1, completed: 1, failed: 0, skipped: 0 });
    } finally {
      await store.close();
      await root.close();
    }
  });

  it('compaction writes the whole state and starts the log again, so state.json alone is complete', async () => {
    const { projectDir, root, store, files } = await openStore();
    try {
      await store.compact();
      store.setNode('c', { status: 'failed', attempts: 1, error: { code: 'timeout', message: 'slow' } });
      await store.commit();
      store.setStatus('failed');
      const ended = await store.compact();
      expect(ended.nodes.c?.status).toBe('failed');
      expect(JSON.parse(await files.state())).toMatchObject({
        status: 'failed',
        nodes: { c: { status: 'failed' } },
      });
      expect((await files.log()).trimEnd().split('\n')).toHaveLength(1);
      expect(await readRunState(projectDir, runId)).toEqual(JSON.parse(await files.state()));
    } finally {
      await store.close();
      await root.close();
    }
  });

  it('finishing writes the whole state and removes the log: state.json alone is the ended run', async () => {
    const { projectDir, root, store, files } = await openStore();
    try {
      await store.compact();
      store.setNode('a', { status: 'completed', attempts: 1 });
      await store.commit();
      store.setStatus('failed');
      await store.finish();
      await expect(files.log()).rejects.toMatchObject({ code: 'ENOENT' });
      expect(JSON.parse(await files.state())).toMatchObject({
        status: 'failed',
        nodes: { a: { status: 'completed' } },
      });
      expect(await readRunState(projectDir, runId)).toEqual(JSON.parse(await files.state()));
    } finally {
      await store.close();
      await root.close();
    }
  });

  it('redacts a secret in a node record as state.json does', async () => {
    const { root, store, files } = await openStore();
    // Built from parts so the repository holds no whole token.
    const token = ['ghp_', 'EXtMlRz4AnKCdkZBwtNGaKx82cVGEIBLG9HR'].join('');
    try {
      await store.compact();
      store.setNode('a', {
        status: 'failed',
        attempts: 1,
        error: { code: 'exit_status', message: `clone failed for ${token}` },
      });
      await store.commit();
      const log = await files.log();
      expect(log).toContain('[REDACTED]');
      expect(log).not.toContain(token);
    } finally {
      await store.close();
      await root.close();
    }
  });

  it('refuses a commit before the first compaction (a misuse)', async () => {
    const { root, store } = await openStore();
    try {
      store.setNode('a', { status: 'running', attempts: 1 });
      await expect(store.commit()).rejects.toMatchObject({ code: 'state_write_failed' });
    } finally {
      await store.close();
      await root.close();
    }
  });
});
