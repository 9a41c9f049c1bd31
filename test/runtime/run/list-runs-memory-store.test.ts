import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseRunId, runEventsPath } from '../../../src/project/index.js';
import { listRuns, readRun } from '../../../src/runtime/run/list-runs.js';
import { eventsOffset } from '../../../src/runtime/run/node/read-attempt-submissions.js';
import { runGraph } from '../../../src/runtime/run/run-graph.js';
import { readRunState, readTransitionLog } from '../../../src/runtime/run/state/run-state.js';
import { createMemoryStore, openProject } from '../../../src/store/index.js';
import type { Project, ProjectStore } from '../../../src/store/index.js';
import { tempProject } from '../../helpers/temp-project.js';
import { agentsOf, defineGraph, echoAgent, testAgent } from './fixtures/run-graph-fixtures.js';

const graph = defineGraph('listed', [
  { id: 'a', type: 'agent_task', agent: 'echo', prompt: 'a', outputPath: 'docs/{run_id}/a.md' },
  { id: 'b', type: 'write_file', after: ['a'], content: '{a.output}', outputPath: 'docs/{run_id}/b.md' },
]);

/** Copies every file below `<projectDir>/.agent` into `store`, under the same keys. */
async function copyAgentFolder(projectDir: string, store: ProjectStore, folder = '.agent'): Promise<void> {
  for (const entry of await readdir(path.join(projectDir, folder), { withFileTypes: true })) {
    const key = `${folder}/${entry.name}`;
    if (entry.isDirectory()) await copyAgentFolder(projectDir, store, key);
    else await store.replace(key, await readFile(path.join(projectDir, key)));
  }
}

/** The same two graph runs (one failed) into `projectDir`, a folder or a `Project` on any store. */
async function runTwoGraphs(projectDir: string | Project): Promise<void> {
  await runGraph({
    projectDir,
    graph,
    inputs: {},
    agentFor: agentsOf(echoAgent()),
    runId: 'zeta',
    now: () => new Date('2025-01-01T00:00:00.000Z'),
    ingest: { enabled: true, durability: 'none' },
  });
  const failing = testAgent('echo', () => {
    throw new Error('no');
  });
  await runGraph({
    projectDir,
    graph,
    inputs: {},
    agentFor: agentsOf(failing),
    runId: 'alpha',
    now: () => new Date('2025-01-02T00:00:00.000Z'),
  });
}

/** Two graph runs on disk (one failed), and a project on a memory store holding a copy of them. */
async function runsOnDiskAndInMemory(): Promise<{ projectDir: string; project: Project }> {
  const projectDir = await tempProject();
  await runTwoGraphs(projectDir);
  const store = createMemoryStore();
  await copyAgentFolder(projectDir, store);
  return { projectDir, project: openProject(await tempProject(), { store }) };
}

describe('listing and reading runs on a memory store', () => {
  it('lists and reads the runs the store holds as the files store does, with nothing under .agent/', async () => {
    const { projectDir, project } = await runsOnDiskAndInMemory();
    const listed = await listRuns(project);
    expect(listed.map((run) => [run.run_id, run.status])).toEqual([
      ['zeta', 'completed'],
      ['alpha', 'failed'],
    ]);
    expect(listed).toEqual(await listRuns(projectDir));
    for (const runId of ['zeta', 'alpha']) {
      expect(await readRun(project, runId)).toEqual(await readRun(projectDir, runId));
    }
    expect((await readRun(project, 'zeta')).manifests).toHaveLength(2);
    const zeta = parseRunId('zeta');
    expect(await readRunState(project, zeta)).toEqual(await readRunState(projectDir, zeta));
    expect(await readTransitionLog(project, zeta)).toEqual(await readTransitionLog(projectDir, zeta));
    expect(await readdir(project.dir)).toEqual([]);
  });

  it('lists and reads runs made in memory as it does the same runs made on disk', async () => {
    const projectDir = await tempProject();
    await runTwoGraphs(projectDir);
    const project = openProject(await tempProject(), { store: createMemoryStore() });
    await runTwoGraphs(project);
    // The documents and the ingested files are the project folder's; .agent/ is the store's, so not on disk.
    expect((await readdir(project.dir)).sort()).toEqual(['docs', 'workspace']);
    expect(await listRuns(project)).toEqual(await listRuns(projectDir));
    // Alike but for the minutes each run took by the wall clock, which no two runs share.
    const withoutMinutes = (details: unknown): string =>
      JSON.stringify(details).replace(/"minutes":[0-9.e-]+/g, '"minutes":0');
    for (const runId of ['zeta', 'alpha'])
      expect(withoutMinutes(await readRun(project, runId))).toBe(
        withoutMinutes(await readRun(projectDir, runId)),
      );
    const zeta = parseRunId('zeta');
    expect(await readTransitionLog(project, zeta)).toEqual(await readTransitionLog(projectDir, zeta));
  });

  it('says a run the store does not hold is unknown', async () => {
    const project = openProject(await tempProject(), { store: createMemoryStore() });
    expect(await listRuns(project)).toEqual([]);
    await expect(readRun(project, 'nope')).rejects.toMatchObject({ code: 'unknown_run' });
    await expect(readRunState(project, parseRunId('nope'))).rejects.toMatchObject({ code: 'unknown_run' });
  });

  it('measures where an attempt’s events begin in the stored log', async () => {
    const project = openProject(await tempProject(), { store: createMemoryStore() });
    const runId = parseRunId('r1');
    expect(await eventsOffset(project, runId)).toBe(0);
    await project.store.append(runEventsPath(runId), '{"event":"x"}\n');
    expect(await eventsOffset(project, runId)).toBe('{"event":"x"}\n'.length);
  });
});
