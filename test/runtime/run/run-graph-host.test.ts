import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/config/index.js';
import { parseRunId } from '../../../src/project/index.js';
import { listRuns, readRun } from '../../../src/runtime/run/list-runs.js';
import { runGraph } from '../../../src/runtime/run/run-graph.js';
import type { RunGraphOptions } from '../../../src/runtime/run/run-types.js';
import { readRunState } from '../../../src/runtime/run/state/index.js';
import { createMemoryStore, openProject } from '../../../src/store/index.js';
import { tempProject } from '../../helpers/temp-project.js';
import { agentsOf, defineGraph, readStateFile, testAgent } from './fixtures/run-graph-fixtures.js';

const HOST = 'ARTIFACT_INGEST_HOST';
const graph = defineGraph('hosted', [
  { id: 'a', type: 'agent_task', agent: 'writer', prompt: 'a', outputPath: 'docs/{run_id}/a.md' },
  {
    id: 'b',
    type: 'agent_task',
    agent: 'writer',
    after: ['a'],
    prompt: 'b',
    outputPath: 'docs/{run_id}/b.md',
  },
]);
const writer = testAgent('writer', (request) => `# ${request.nodeId}\n`);
/** Fails node b while `failing.b` is true, so the run ends failed and can be resumed. */
const failing = { b: true };
const flaky = testAgent('writer', (request) => {
  if (request.nodeId === 'b' && failing.b) throw new Error('not yet');
  return `# ${request.nodeId}\n`;
});

function run(projectDir: RunGraphOptions['projectDir'], runId: string, extra: Partial<RunGraphOptions> = {}) {
  return runGraph({
    projectDir,
    graph,
    inputs: {},
    agentFor: agentsOf(writer),
    runId,
    ingest: { enabled: false, durability: 'none' },
    ...extra,
  });
}

const statePath = (projectDir: string, runId: string): string =>
  path.join(projectDir, '.agent', 'runs', runId, 'state.json');

describe('a graph run records its host', () => {
  it('writes ARTIFACT_INGEST_HOST into state.json at the start, and keeps it to the end', async () => {
    const projectDir = await tempProject();
    let atStart: unknown;
    const peeking = testAgent('writer', async (request) => {
      if (request.nodeId === 'a') atStart = JSON.parse(await readFile(statePath(projectDir, 'r1'), 'utf8'));
      return `# ${request.nodeId}\n`;
    });
    const result = await run(projectDir, 'r1', {
      env: { [HOST]: 'ci-runner-7' },
      agentFor: agentsOf(peeking),
    });

    expect(atStart).toMatchObject({ run_id: 'r1', host: 'ci-runner-7', status: 'running' });
    expect(result.state.host).toBe('ci-runner-7');
    expect((await readStateFile(projectDir, 'r1')).host).toBe('ci-runner-7');
  });

  it("records this machine's host name when the variable is unset or empty", async () => {
    const projectDir = await tempProject();
    await run(projectDir, 'unset', { env: {} });
    await run(projectDir, 'empty', { env: { [HOST]: '' } });
    expect((await readStateFile(projectDir, 'unset')).host).toBe(hostname());
    expect((await readStateFile(projectDir, 'empty')).host).toBe(hostname());
  });

  it('adds one line after run_id to state.json and leaves the rest of its layout as it was', async () => {
    const projectDir = await tempProject();
    await run(projectDir, 'r1', { env: { [HOST]: 'ci-7' } });
    const text = await readFile(statePath(projectDir, 'r1'), 'utf8');
    const lines = text.split('\n');
    expect(lines.slice(0, 4)).toEqual(['{', '  "version": 1,', '  "run_id": "r1",', '  "host": "ci-7",']);
    // What the writer made before runs recorded their host: the same object without the field, same format.
    const withoutHost = JSON.parse(text) as Record<string, unknown>;
    delete withoutHost.host;
    expect([...lines.slice(0, 3), ...lines.slice(4)].join('\n')).toBe(
      `${JSON.stringify(withoutHost, null, 2)}\n`,
    );
  });

  it('keeps the host that created the run when another host resumes it', async () => {
    const projectDir = await tempProject();
    failing.b = true;
    const first = await run(projectDir, 'r1', { env: { [HOST]: 'laptop' }, agentFor: agentsOf(flaky) });
    expect(first.status).toBe('failed');
    failing.b = false;
    const resumed = await run(projectDir, 'r1', {
      env: { [HOST]: 'ci-runner-7' },
      agentFor: agentsOf(flaky),
      resume: true,
    });
    expect(resumed.status).toBe('completed');
    expect((await readStateFile(projectDir, 'r1')).host).toBe('laptop');
  });

  it('resumes a run made before runs recorded their host without giving it one', async () => {
    const projectDir = await tempProject();
    failing.b = true;
    await run(projectDir, 'old', { env: { [HOST]: 'laptop' }, agentFor: agentsOf(flaky) });
    const state = JSON.parse(await readFile(statePath(projectDir, 'old'), 'utf8')) as Record<string, unknown>;
    delete state.host;
    await writeFile(statePath(projectDir, 'old'), `${JSON.stringify(state, null, 2)}\n`);
    failing.b = false;
    const resumed = await run(projectDir, 'old', {
      env: { [HOST]: 'ci-runner-7' },
      agentFor: agentsOf(flaky),
      resume: true,
    });
    expect(resumed.status).toBe('completed');
    expect(await readStateFile(projectDir, 'old')).not.toHaveProperty('host');
  });

  it('refuses an unprintable ARTIFACT_INGEST_HOST before anything is written', async () => {
    const projectDir = await tempProject();
    const refused = run(projectDir, 'r1', { env: { [HOST]: 'ci\u001b[2J7' } });
    await expect(refused).rejects.toBeInstanceOf(ConfigError);
    await expect(refused).rejects.toThrow(
      'ARTIFACT_INGEST_HOST: holds a control or invisible character (U+001B, character 3)',
    );
    expect(existsSync(path.join(projectDir, '.agent'))).toBe(false);
    expect(existsSync(path.join(projectDir, 'docs'))).toBe(false);
  });

  it('refuses a host over 255 characters on a resume too, leaving the run as it was', async () => {
    const projectDir = await tempProject();
    failing.b = true;
    await run(projectDir, 'r1', { env: { [HOST]: 'laptop' }, agentFor: agentsOf(flaky) });
    const before = await readFile(statePath(projectDir, 'r1'), 'utf8');
    const refused = run(projectDir, 'r1', { env: { [HOST]: 'h'.repeat(256) }, resume: true });
    await expect(refused).rejects.toThrow('ARTIFACT_INGEST_HOST: is 256 characters long, over the 255');
    expect(await readFile(statePath(projectDir, 'r1'), 'utf8')).toBe(before);
  });

  it('lists a state whose host was edited into an unprintable one as unreadable, naming the field', async () => {
    const projectDir = await tempProject();
    await run(projectDir, 'r1', { env: { [HOST]: 'laptop' } });
    const text = await readFile(statePath(projectDir, 'r1'), 'utf8');
    await writeFile(statePath(projectDir, 'r1'), text.replace('"laptop"', '"lap\\u0007top"'));
    const [summary] = await listRuns(projectDir);
    expect(summary).toMatchObject({ run_id: 'r1', status: 'unreadable' });
    expect(summary).not.toHaveProperty('host');
    expect(summary?.error).toContain(
      'is not a valid run state (version 1): host: holds a control or invisible character (U+0007, character 4)',
    );
  });

  it('records the host on a memory store too, and its listing shows it', async () => {
    const project = openProject(await tempProject(), { store: createMemoryStore() });
    await run(project, 'r1', { env: { [HOST]: 'in-memory' } });
    expect((await readRunState(project, parseRunId('r1'))).host).toBe('in-memory');
    expect((await listRuns(project)).map((summary) => summary.host)).toEqual(['in-memory']);
    expect((await readRun(project, 'r1')).host).toBe('in-memory');
  });
});
