import { mkdirSync, rmSync } from 'node:fs';
import { mkdir, readFile, symlink } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseRunId } from '../../../src/project/index.js';
import { openProjectStore } from '../../../src/store/index.js';
import { RunError } from '../../../src/runtime/run/run-error.js';
import { runGraph } from '../../../src/runtime/run/run-graph.js';
import {
  parseRunState,
  readRunState,
  runStateSchema,
  writeRunState,
} from '../../../src/runtime/run/state/run-state.js';
import type { RunState } from '../../../src/runs/index.js';
import { readEvents, tempProject } from '../../helpers/temp-project.js';
import { agentsOf, defineGraph, echoAgent, exists, sleep, testAgent } from './fixtures/run-graph-fixtures.js';

const valid: RunState = {
  version: 1,
  run_id: parseRunId('r1'),
  status: 'running',
  graph: { name: 'g', hash: 'a'.repeat(64), source: 'builtin:g' },
  mode: 'single',
  inputs: { goal: 'x' },
  ingest_enabled: true,
  created_at: '2025-06-01T12:00:00.000Z',
  updated_at: '2025-06-01T12:00:01.000Z',
  nodes: {
    plan: {
      status: 'completed',
      attempts: 1,
      started_at: '2025-06-01T12:00:00.000Z',
      finished_at: '2025-06-01T12:00:01.000Z',
      output_path: 'docs/plan.md',
      output_sha256: 'b'.repeat(64),
      prompt_sha256: 'c'.repeat(64),
      agent: 'planner',
      ingest: {
        total_blocks: 1,
        written: 1,
        skipped: 0,
        rejected: 0,
        manifest_path: '.agent/runs/r1/manifests/plan.json',
        problems: [],
      },
    },
    todo: { status: 'skipped', attempts: 0, error: { code: 'dependency_failed', message: 'm' } },
  },
};

describe('runStateSchema', () => {
  it('accepts a full state', () => {
    expect(runStateSchema.parse(valid)).toEqual(valid);
  });

  it.each([
    ['an unknown key', { ...valid, extra: 1 }, '(root): Unrecognized key: "extra"'],
    ['another version', { ...valid, version: 2 }, 'version: '],
    [
      'an unknown node status',
      { ...valid, nodes: { a: { status: 'done', attempts: 0 } } },
      'nodes.a.status: ',
    ],
    ['a bad run id', { ...valid, run_id: '../x' }, 'run_id: '],
    ['a bad mode', { ...valid, mode: 'solo' }, 'mode: '],
    [
      'a bad digest',
      { ...valid, nodes: { a: { status: 'completed', attempts: 1, output_sha256: 'xyz' } } },
      'nodes.a.output_sha256: ',
    ],
  ])('rejects %s, naming the field', (_name, state, field) => {
    expect(() => parseRunState(JSON.stringify(state), 'state.json')).toThrow(
      `state.json is not a valid run state (version 1): `,
    );
    expect(() => parseRunState(JSON.stringify(state), 'state.json')).toThrow(field);
  });
});

describe('writeRunState and readRunState', () => {
  it('round-trips a state through an atomic write', async () => {
    const projectDir = await tempProject();
    const root = openProjectStore(projectDir);
    try {
      await writeRunState(root, valid);
    } finally {
      await root.close();
    }
    expect(await readRunState(projectDir, parseRunId('r1'))).toEqual(valid);
    expect(await readFile(path.join(projectDir, '.agent/runs/r1/state.json'), 'utf8')).toBe(
      `${JSON.stringify(valid, null, 2)}\n`,
    );
  });

  it('refuses to write through a symlinked run folder', async () => {
    const projectDir = await tempProject();
    const outside = await tempProject();
    await mkdir(path.join(projectDir, '.agent/runs'), { recursive: true });
    await symlink(outside, path.join(projectDir, '.agent/runs/r1'));
    const root = openProjectStore(projectDir);
    try {
      await expect(writeRunState(root, valid)).rejects.toThrow(/state\.json was not written: symlink/);
    } finally {
      await root.close();
    }
    expect(await exists(path.join(outside, 'state.json'))).toBe(false);
  });
});

describe('a state that cannot be written', () => {
  it('stops the run with state_write_failed at its end, records run.failed and releases the lock', async () => {
    const projectDir = await tempProject();
    const statePath = path.join(projectDir, '.agent/runs/sw/state.json');
    const graph = defineGraph('sw', [
      { id: 'a', type: 'agent_task', agent: 'slow', prompt: 'a', outputPath: 'docs/a.md' },
      { id: 'b', type: 'agent_task', agent: 'slow', after: ['a'], prompt: 'b', outputPath: 'docs/b.md' },
    ]);
    const slow = testAgent('slow', async (request) => {
      await sleep(10);
      return echoAgent().complete(request);
    });
    const run = runGraph({
      projectDir,
      graph,
      inputs: {},
      agentFor: agentsOf(slow),
      runId: 'sw',
      onProgress: (progress) => {
        // A directory where state.json belongs: the transitions go to the log, the end's compaction is refused.
        if (progress.type === 'node.started' && progress.nodeId === 'a') {
          rmSync(statePath);
          mkdirSync(statePath);
        }
      },
    });
    await expect(run).rejects.toThrow(RunError);
    await expect(run).rejects.toThrow(/^\.agent\/runs\/sw\/state\.json was not written: is_a_directory/);
    const events = await readEvents(projectDir, 'sw');
    expect(events.at(-1)).toMatchObject({
      event: 'run.failed',
      level: 'ERROR',
      reason: 'state_write_failed',
    });
    expect(events.some((event) => event.event === 'run.completed')).toBe(false);
    expect(await exists(path.join(projectDir, '.agent/runs/sw/lock'))).toBe(false);
  });
});
