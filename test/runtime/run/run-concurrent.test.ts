import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { eventLineSchema } from '../../../src/events/index.js';
import { tempProject } from '../../helpers/temp-project.js';
import { readState, spawnRunChild } from './fixtures/run-graph-fixtures.js';

describe('two runs in one project at once', () => {
  it('both complete with valid state and their own events, sharing workspace paths atomically', async () => {
    const projectDir = await tempProject();
    const scratch = await tempProject();
    const runs = ['left', 'right'].map((runId) =>
      spawnRunChild({
        projectDir,
        runId,
        markerDir: path.join(scratch, runId),
        graph: 'concurrent',
        delayMs: 30,
        flavour: runId,
        // Both reach node a before either goes on: the runs overlap for certain.
        barrierDir: path.join(scratch, 'barrier'),
        ingest: true,
      }),
    );
    let exits;
    try {
      exits = await Promise.all(runs.map((run) => run.exited));
    } finally {
      for (const { child } of runs)
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }

    for (const [index, runId] of ['left', 'right'].entries()) {
      expect(exits[index]).toMatchObject({ code: 0, stderr: '' });
      expect(JSON.parse(exits[index]?.stdout ?? '')).toEqual({ runId, status: 'completed' });
      const state = await readState(projectDir, runId);
      expect(state.status).toBe('completed');
      expect(
        Object.values(state.nodes).every(
          (node) => node.status === 'completed' && node.ingest?.problems.length === 0,
        ),
      ).toBe(true);

      const lines = (
        await readFile(path.join(projectDir, '.agent/runs', runId, 'events.jsonl'), 'utf8')
      ).split('\n');
      expect(lines.pop()).toBe('');
      const events = lines.map((line) => eventLineSchema.parse(JSON.parse(line)));
      expect(events.every((event) => event.run_id === runId)).toBe(true);
      expect(events[0]?.event).toBe('run.started');
      expect(events.at(-2)?.event).toBe('run.completed');
      expect(events.at(-1)?.event).toBe('run.terminal');
      expect(events.filter((event) => event.event === 'ingest.summary')).toHaveLength(4);

      // d.md is b then c: each run's documents only hold that run's replies.
      const d = await readFile(path.join(projectDir, 'docs', runId, 'd.md'), 'utf8');
      expect(d).toContain(`flavour = "${runId}"`);
      expect(d).not.toContain(`flavour = "${runId === 'left' ? 'right' : 'left'}"`);
    }
    // Both runs wrote workspace/src/shared.ts: it holds exactly one run's version, never a mix.
    const shared = await readFile(path.join(projectDir, 'workspace/src/shared.ts'), 'utf8');
    expect(['export const flavour = "left";\n', 'export const flavour = "right";\n']).toContain(shared);
  });
});
