import { existsSync } from 'node:fs';
import { lstat, mkdir, readFile, rename, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Agent } from '../../../src/runtime/agents/agent.js';
import { runGraph } from '../../../src/runtime/run/run-graph.js';
import { tempProject } from '../../helpers/temp-project.js';
import { artifactDocument, DEVELOPMENT_RESULT, developGraph } from './fixtures/contract-fixtures.js';
import { agentsOf } from './fixtures/run-graph-fixtures.js';

/** A builder that answers with a valid development_result after `plant` ran (mid-run, as an attacker would). */
function plantingAgent(plant: (runId: string) => Promise<void>): Agent {
  return {
    name: 'builder',
    kind: 'replay',
    complete: async (request) => {
      await plant(request.runId);
      return artifactDocument('development_result', DEVELOPMENT_RESULT);
    },
  };
}

describe('declaring the terminal state', () => {
  it('refuses a symlink planted at terminal.json instead of writing through it', async () => {
    const projectDir = await tempProject();
    const outside = await tempProject({ 'victim.json': 'precious' });
    const victim = path.join(outside, 'victim.json');
    const agent = plantingAgent(async (runId) => {
      await symlink(victim, path.join(projectDir, '.agent/runs', runId, 'terminal.json'));
    });

    const run = runGraph({
      projectDir,
      graph: developGraph(),
      inputs: {},
      agentFor: agentsOf(agent),
      runId: 't1',
    });

    await expect(run).rejects.toMatchObject({
      code: 'state_write_failed',
      message: expect.stringMatching(
        /^\.agent\/runs\/t1\/terminal\.json was not written: symlink: /,
      ) as unknown,
    });
    expect(await readFile(victim, 'utf8')).toBe('precious');
    expect((await lstat(path.join(projectDir, '.agent/runs/t1/terminal.json'))).isSymbolicLink()).toBe(true);
  });

  it('never writes terminal.json through a symlink planted at the run folder', async () => {
    const projectDir = await tempProject();
    const outside = await tempProject();
    const agent = plantingAgent(async (runId) => {
      const runFolder = path.join(projectDir, '.agent/runs', runId);
      // The real folder moves aside; the run's path now leads outside the project.
      await rename(runFolder, `${runFolder}.moved`);
      await mkdir(path.join(outside, 'run'), { recursive: true });
      await writeFile(path.join(outside, 'run', 'marker'), 'x');
      await symlink(path.join(outside, 'run'), runFolder);
    });

    await expect(
      runGraph({ projectDir, graph: developGraph(), inputs: {}, agentFor: agentsOf(agent), runId: 't2' }),
    ).rejects.toMatchObject({ code: 'state_write_failed' });

    expect(existsSync(path.join(outside, 'run', 'terminal.json'))).toBe(false);
    expect(existsSync(path.join(outside, 'run', 'state.json'))).toBe(false);
    expect(existsSync(path.join(projectDir, '.agent/runs/t2.moved/terminal.json'))).toBe(false);
  });
});
