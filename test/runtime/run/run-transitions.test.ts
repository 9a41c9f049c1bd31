import { describe, expect, it } from 'vitest';
import { parseRunId, sha256Hex } from '../../../src/project/index.js';
import { applyRunTransitions, transitionLogHeader } from '../../../src/runtime/run/state/run-transitions.js';
import type { RunState } from '../../../src/runs/index.js';

const base: RunState = {
  version: 1,
  run_id: parseRunId('r1'),
  status: 'running',
  graph: { name: 'g', hash: 'a'.repeat(64), source: 'builtin:g' },
  mode: 'single',
  inputs: {},
  ingest_enabled: false,
  created_at: '2025-06-01T12:00:00.000Z',
  updated_at: '2025-06-01T12:00:00.000Z',
  nodes: { a: { status: 'pending', attempts: 0 }, b: { status: 'pending', attempts: 0 } },
};
const stateText = `${JSON.stringify(base, null, 2)}\n`;
const header = transitionLogHeader(sha256Hex(new TextEncoder().encode(stateText)));
const line = (value: object): string => `${JSON.stringify(value)}\n`;
const running = line({
  seq: 1,
  at: '2025-06-01T12:00:01.000Z',
  node: 'a',
  state: { status: 'running', attempts: 1, started_at: '2025-06-01T12:00:01.000Z' },
});
const completed = line({
  seq: 2,
  at: '2025-06-01T12:00:02.000Z',
  node: 'a',
  state: { status: 'completed', attempts: 1 },
  budgets: { max_fix_attempts: 2, agent_calls: 1, minutes: 0 },
});
const ended = line({ seq: 3, at: '2025-06-01T12:00:03.000Z', status: 'failed' });

const statuses = (state: RunState): Record<string, string> =>
  Object.fromEntries(Object.entries(state.nodes).map(([id, node]) => [id, node.status]));

describe('applyRunTransitions', () => {
  it('applies every line in order: node records, status, updated_at and budgets', () => {
    const state = applyRunTransitions(base, stateText, header + running + completed + ended);
    expect(statuses(state)).toEqual({ a: 'completed', b: 'pending' });
    expect(state.status).toBe('failed');
    expect(state.updated_at).toBe('2025-06-01T12:00:03.000Z');
    expect(state.budgets).toEqual({ max_fix_attempts: 2, agent_calls: 1, minutes: 0 });
    expect(Object.keys(state.nodes)).toEqual(['a', 'b']);
  });

  it.each([
    ['a torn last line (kill -9 mid-append)', header + running + completed.slice(0, 40), 'running'],
    ['a last line without its newline', header + running + completed.slice(0, -1), 'running'],
    ['a gap in the sequence', header + running + ended, 'running'],
    ['a line that is not JSON', `${header + running}{oops\n${completed}`, 'running'],
    [
      'a line for a node the run does not have',
      header +
        running +
        line({
          seq: 2,
          at: '2025-06-01T12:00:02.000Z',
          node: 'zz',
          state: { status: 'completed', attempts: 1 },
        }) +
        completed,
      'running',
    ],
    [
      'a node record the schema refuses',
      header +
        running +
        line({ seq: 2, at: '2025-06-01T12:00:02.000Z', node: 'a', state: { status: 'done', attempts: 1 } }),
      'running',
    ],
  ])('stops at %s and keeps what came before', (_name, log, expected) => {
    expect(applyRunTransitions(base, stateText, log).nodes.a?.status).toBe(expected);
  });

  it.each([
    [
      'names other state.json bytes (a compaction that crashed before rewriting the log)',
      transitionLogHeader('f'.repeat(64)) + running,
    ],
    ['has no header', running + completed],
    ['is empty', ''],
  ])('adds nothing when the log %s', (_name, log) => {
    expect(applyRunTransitions(base, stateText, log)).toBe(base);
  });

  it('adds nothing when state.json was edited after the log began (its bytes changed)', () => {
    const edited = stateText.replace('"pending"', '"failed"');
    const state = applyRunTransitions({ ...base }, edited, header + running);
    expect(state.nodes.a?.status).toBe('pending');
  });
});
