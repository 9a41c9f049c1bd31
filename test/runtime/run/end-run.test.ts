import { describe, expect, it } from 'vitest';
import { runGraph } from '../../../src/runtime/run/run-graph.js';
import { readEvents, tempProject } from '../../helpers/temp-project.js';
import { graphOf } from './fixtures/contract-fixtures.js';
import { agentsOf, echoAgent } from './fixtures/run-graph-fixtures.js';

const pair = graphOf(
  'pair',
  `nodes:
  - { id: a, type: agent_task, agent: echo, prompt: a, output_path: docs/a.md }
  - { id: b, type: agent_task, agent: echo, prompt: b, output_path: docs/b.md, depends_on: [a] }
  - { id: c, type: write_file, content: c, output_path: docs/c.md, depends_on: [b] }
`,
);

describe('endRun', () => {
  it('ends a run out of agent calls as failed for its budget, dependents left pending, then declares it', async () => {
    const projectDir = await tempProject();
    const result = await runGraph({
      projectDir,
      graph: pair,
      inputs: {},
      agentFor: agentsOf(echoAgent()),
      runId: 'out',
      budgets: { maxAgentCalls: 1 },
    });
    expect(result.status).toBe('failed');
    expect(result.state.nodes.c).toEqual({ status: 'pending', attempts: 0 });
    const events = await readEvents(projectDir, 'out');
    expect(events.slice(-2)).toEqual([
      expect.objectContaining({
        event: 'run.failed',
        reason: 'budget_exceeded',
        failed_nodes: ['b'],
        pending_nodes: ['c'],
      }),
      expect.objectContaining({ event: 'run.terminal', state: 'budget_exceeded' }),
    ]);
  });

  it('ends a completed run done, with the budgets used in state.json and the run.terminal event', async () => {
    const projectDir = await tempProject();
    const result = await runGraph({
      projectDir,
      graph: pair,
      inputs: {},
      agentFor: agentsOf(echoAgent()),
      runId: 'ok',
      budgets: { maxAgentCalls: 5, maxMinutes: 10 },
    });
    expect(result.terminal).toMatchObject({ state: 'done', artifact: null, reason: 'every node completed' });
    expect(result.state.budgets).toMatchObject({ max_agent_calls: 5, max_minutes: 10, agent_calls: 2 });
    const events = await readEvents(projectDir, 'ok');
    expect(events.at(-1)).toMatchObject({ event: 'run.terminal', budgets: { agent_calls: 2 } });
  });

  it.each([
    [{ maxAgentCalls: 0 }, 'budgets.max_agent_calls'],
    [{ maxMinutes: -1 }, 'budgets.max_minutes'],
  ])('refuses budgets %j before anything is written', async (budgets, where) => {
    const projectDir = await tempProject();
    await expect(
      runGraph({
        projectDir,
        graph: pair,
        inputs: {},
        agentFor: agentsOf(echoAgent()),
        runId: 'bad',
        budgets,
      }),
    ).rejects.toThrow(where);
  });
});
