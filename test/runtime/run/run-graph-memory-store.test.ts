import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readRunReport, replayRun, verifyArtifacts } from '../../../src/index.js';
import { listRuns, readRunState } from '../../../src/runtime/index.js';
import { parseRunId } from '../../../src/project/index.js';
import { runGraph } from '../../../src/runtime/run/run-graph.js';
import { createMemoryStore, openProject } from '../../../src/store/index.js';
import { tempProject } from '../../helpers/temp-project.js';
import { agentsOf, blockReply, defineGraph, testAgent } from './fixtures/run-graph-fixtures.js';

// A graph run whose project keeps its runs in memory: documents and files land in the folder, the run (lock,
// state, transition log, events, records, objects, terminal state) only in the store.

const graph = defineGraph('flow', [
  { id: 'plan', type: 'agent_task', agent: 'writer', prompt: 'Plan it', outputPath: 'docs/plan.md' },
  {
    id: 'build',
    type: 'agent_task',
    agent: 'writer',
    after: ['plan'],
    prompt: 'Build {plan.output}',
    outputPath: 'docs/build.md',
  },
]);
const writer = testAgent('writer', (request) => blockReply(request.nodeId, request.prompt));

describe('runGraph on a memory store', () => {
  it('runs, ingests and records with nothing under .agent/, and lineage reads the run from the store', async () => {
    const dir = await tempProject();
    const store = createMemoryStore();
    const project = openProject(dir, { store });
    const result = await runGraph({
      projectDir: project,
      graph,
      inputs: {},
      agentFor: agentsOf(writer),
      runId: 'r1',
      ingest: { enabled: true, durability: 'none' },
    });

    expect(result.status).toBe('completed');
    expect(await readFile(path.join(dir, 'docs/plan.md'), 'utf8')).toBe(blockReply('plan', 'Plan it'));
    expect(existsSync(path.join(dir, 'workspace/src/plan.ts'))).toBe(true);
    expect(existsSync(path.join(dir, 'workspace/src/build.ts'))).toBe(true);
    expect(existsSync(path.join(dir, '.agent'))).toBe(false);

    expect((await readRunState(project, parseRunId('r1'))).nodes).toMatchObject({
      plan: { status: 'completed' },
      build: { status: 'completed' },
    });
    expect((await listRuns(project)).map((run) => [run.run_id, run.status])).toEqual([['r1', 'completed']]);
    expect((await store.list('.agent/runs/r1')).map((entry) => entry.name)).toEqual(
      expect.arrayContaining(['artifacts.jsonl', 'events.jsonl', 'state.json', 'terminal.json']),
    );
    const replay = await replayRun(project, 'r1');
    expect(
      replay.steps.map((step) => [step.taskId, step.artifacts.map((artifact) => artifact.path)]),
    ).toEqual([
      ['plan', ['docs/plan.md', 'workspace/src/plan.ts']],
      ['build', ['docs/build.md', 'workspace/src/build.ts']],
    ]);
    expect(await verifyArtifacts(project)).toMatchObject({ errors: 0, runs: 1 });
    const report = await readRunReport(project, 'r1');
    expect(report.run).toMatchObject({ kind: 'graph', status: 'completed' });
    expect(existsSync(path.join(dir, '.agent'))).toBe(false);
    // The store was the caller's: it is still open, and a second run on it sees the first.
    await expect(
      runGraph({ projectDir: project, graph, inputs: {}, agentFor: agentsOf(writer), runId: 'r1' }),
    ).rejects.toMatchObject({ code: 'run_exists' });
  });
});
