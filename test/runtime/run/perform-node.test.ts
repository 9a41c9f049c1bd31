import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openObjectStore, readArtifactRecords, traceContentSchema } from '../../../src/artifacts/index.js';
import { readSubmissions, submitArtifact } from '../../../src/contracts/index.js';
import { parseRunId } from '../../../src/project/index.js';
import type { Agent, AgentRequest } from '../../../src/runtime/agents/agent.js';
import { createCommandAgent } from '../../../src/runtime/agents/command-agent.js';
import { createReplayAgent } from '../../../src/runtime/agents/replay-agent.js';
import { runGraph } from '../../../src/runtime/run/run-graph.js';
import type { RunProgress } from '../../../src/runtime/run/run-types.js';
import { readEvents, tempProject } from '../../helpers/temp-project.js';
import {
  artifactDocument,
  BLOCKER_ISSUES,
  DEVELOPMENT_RESULT,
  developGraph,
  graphOf,
  writeReplies,
} from './fixtures/contract-fixtures.js';
import { agentsOf } from './fixtures/run-graph-fixtures.js';

/** Wraps an agent so a test sees every request it was given. */
function recording(agent: Agent): { readonly agent: Agent; readonly requests: AgentRequest[] } {
  const requests: AgentRequest[] = [];
  return {
    requests,
    agent: {
      name: agent.name,
      kind: agent.kind,
      complete: (request) => {
        requests.push(request);
        return agent.complete(request);
      },
    },
  };
}

async function replayBuilder(projectDir: string, replies: Record<string, string>) {
  const dir = await writeReplies(projectDir, replies);
  return recording(createReplayAgent('builder', { kind: 'replay', dir }));
}

/** The run's traces for `nodeId`, each checked against the trace schema. */
async function tracesOf(projectDir: string, runId: string, nodeId: string) {
  const { records, problems } = await readArtifactRecords(projectDir, parseRunId(runId));
  expect(problems).toEqual([]);
  const store = await openObjectStore(projectDir);
  try {
    const traces = records.filter((record) => record.type === 'trace' && record.taskId === nodeId);
    const contents = await Promise.all(traces.map((record) => store.get(record.contentHash)));
    return contents.map((bytes) => traceContentSchema.parse(JSON.parse(new TextDecoder().decode(bytes))));
  } finally {
    await store.close();
  }
}

async function readJson(projectDir: string, relative: string): Promise<unknown> {
  return JSON.parse(await readFile(path.join(projectDir, relative), 'utf8')) as unknown;
}

describe('completion detection in a graph run', () => {
  it('re-asks an agent that returns without submitting, then ends budget_exceeded', async () => {
    const projectDir = await tempProject();
    const builder = await replayBuilder(projectDir, { 'develop.md': '# Develop\n\nI built it, trust me.\n' });
    const progress: RunProgress[] = [];

    const result = await runGraph({
      projectDir,
      graph: developGraph(),
      inputs: {},
      agentFor: agentsOf(builder.agent),
      runId: 'silent',
      onProgress: (event) => progress.push(event),
    });

    // The default max_fix_attempts is 2: one ask and two re-asks.
    expect(builder.requests.map((request) => request.attempt)).toEqual([1, 2, 3]);
    expect(builder.requests[1]?.prompt).toContain('Fix request 1 of 2');
    expect(builder.requests[1]?.prompt).toContain('no development_result artifact was submitted');
    expect(progress.filter((event) => event.type === 'node.fix_needed')).toEqual([
      expect.objectContaining({ nodeId: 'develop', attempt: 1, of: 2 }),
      expect.objectContaining({ nodeId: 'develop', attempt: 2, of: 2 }),
    ]);
    expect(result.status).toBe('failed');
    expect(result.state.nodes.develop).toMatchObject({
      status: 'failed',
      attempts: 3,
      error: { code: 'fix_needed' },
      contract: { type: 'development_result', state: 'fix_needed', attempts: 3 },
    });
    expect(result.state.nodes.review?.status).toBe('skipped');
    expect(result.state.budgets).toMatchObject({ max_fix_attempts: 2, agent_calls: 3 });
    expect(result.terminal).toMatchObject({ state: 'budget_exceeded', artifact: null });
    expect(result.terminal?.reason).toContain('max_fix_attempts ran out: node develop');
    expect(await readJson(projectDir, '.agent/runs/silent/terminal.json')).toEqual(result.terminal);
    const events = await readEvents(projectDir, 'silent');
    expect(events.filter((event) => event.event === 'node.fix_needed').map((event) => event.attempt)).toEqual(
      [1, 2],
    );
    expect(events.at(-1)).toMatchObject({ event: 'run.terminal', state: 'budget_exceeded' });
  });

  it('accepts malformed JSON fixed on the re-ask: done after two attempts, the fix prompt naming the field', async () => {
    const projectDir = await tempProject();
    const broken = { ...DEVELOPMENT_RESULT, outcome: 'finished' };
    const builder = await replayBuilder(projectDir, {
      'develop.md': artifactDocument('development_result', broken),
      'develop.attempt-2.md': artifactDocument('development_result', DEVELOPMENT_RESULT),
    });

    const result = await runGraph({
      projectDir,
      graph: developGraph(),
      inputs: {},
      agentFor: agentsOf(builder.agent),
      runId: 'fixed',
    });

    expect(builder.requests).toHaveLength(2);
    const fixPrompt = builder.requests[1]?.prompt ?? '';
    expect(fixPrompt.startsWith('Build the shortener\n\nFix request 1 of 2')).toBe(true);
    expect(fixPrompt).toContain('outcome: expected one of');
    expect(result.status).toBe('completed');
    const artifact = '.agent/artifacts/fixed/development_result.json';
    expect(result.state.nodes.develop).toMatchObject({
      status: 'completed',
      attempts: 2,
      contract: { type: 'development_result', state: 'done', attempts: 2, artifact },
    });
    expect(result.terminal).toMatchObject({ state: 'done', artifact });
    expect(await readJson(projectDir, artifact)).toEqual(DEVELOPMENT_RESULT);
    // One valid trace per ask, each with its own attempt and prompt; the refused block was never recorded.
    const traces = await tracesOf(projectDir, 'fixed', 'develop');
    expect(traces.map((trace) => [trace.attempt, trace.outcome])).toEqual([
      [1, 'completed'],
      [2, 'completed'],
    ]);
    expect(traces[0]?.promptSha256).not.toBe(traces[1]?.promptSha256);
    const submissions = await readSubmissions(projectDir, parseRunId('fixed'));
    expect(
      submissions.map((submission) => [submission.type, submission.record.taskId, submission.record.agentId]),
    ).toEqual([
      ['development_result', 'develop', 'builder'],
      // review's document quotes develop's, block included: every node document is submitted.
      ['development_result', 'review', 'runtime'],
    ]);
    // The document is the fixed answer, rewritten at the same path.
    expect(await readFile(path.join(projectDir, 'docs/fixed/develop.md'), 'utf8')).toBe(
      artifactDocument('development_result', DEVELOPMENT_RESULT),
    );
  });

  it('refuses a block that is not JSON with a (root) error the re-ask quotes', async () => {
    const projectDir = await tempProject();
    const builder = await replayBuilder(projectDir, {
      'develop.md': artifactDocument('development_result', '{ "outcome": completed }'),
      'develop.attempt-2.md': artifactDocument('development_result', DEVELOPMENT_RESULT),
    });
    const result = await runGraph({
      projectDir,
      graph: developGraph(),
      inputs: {},
      agentFor: agentsOf(builder.agent),
      runId: 'syntax',
    });
    expect(builder.requests[1]?.prompt).toContain('(root): expected one JSON object');
    expect(result.terminal?.state).toBe('done');
    const events = await readEvents(projectDir, 'syntax');
    expect(events.find((event) => event.event === 'artifact.refused')).toMatchObject({
      node_id: 'develop',
      type: 'development_result',
      code: 'invalid_artifact',
    });
  });

  it('stops after max_fix_attempts re-asks of an agent that never fixes it, with exactly that many calls', async () => {
    const projectDir = await tempProject();
    const broken = { ...DEVELOPMENT_RESULT, changed_files: [{ path: '../etc/passwd', change: 'added' }] };
    const builder = await replayBuilder(projectDir, {
      'develop.md': artifactDocument('development_result', broken),
    });

    const result = await runGraph({
      projectDir,
      graph: developGraph('max_fix_attempts: 1'),
      inputs: {},
      agentFor: agentsOf(builder.agent),
      runId: 'never',
    });

    expect(builder.requests).toHaveLength(2);
    expect(builder.requests[1]?.prompt).toContain('Fix request 1 of 1');
    expect(builder.requests[1]?.prompt).toContain('changed_files[0].path');
    expect(result.state.nodes.develop?.contract).toMatchObject({
      state: 'fix_needed',
      attempts: 2,
      errors: [expect.objectContaining({ path: 'changed_files[0].path' })],
    });
    expect(result.state.budgets).toMatchObject({ agent_calls: 2, max_fix_attempts: 1 });
    expect(result.terminal?.state).toBe('budget_exceeded');
    expect(result.terminal?.reason).toContain('changed_files[0].path');
  });

  it('re-asks an agent that times out (a real sleeping process), then ends budget_exceeded', async () => {
    const projectDir = await tempProject();
    const sleeper = recording(
      createCommandAgent('builder', {
        kind: 'command',
        command: [process.execPath, '-e', 'setTimeout(() => {}, 30000)'],
        timeoutMs: 300,
      }),
    );

    const result = await runGraph({
      projectDir,
      graph: developGraph('max_fix_attempts: 1'),
      inputs: {},
      agentFor: agentsOf(sleeper.agent),
      runId: 'sleepy',
    });

    expect(sleeper.requests.map((request) => request.attempt)).toEqual([1, 2]);
    expect(sleeper.requests[1]?.prompt).toContain('the agent did not return (timeout');
    expect(result.state.nodes.develop).toMatchObject({
      status: 'failed',
      error: { code: 'fix_needed' },
      contract: { state: 'fix_needed', attempts: 2 },
    });
    expect(result.terminal?.state).toBe('budget_exceeded');
    const events = await readEvents(projectDir, 'sleepy');
    expect(events.find((event) => event.event === 'node.fix_needed')?.reason).toContain('timeout');
  });

  it('blocks a node whose agent reports a blocker issue, and the issues file is what to read', async () => {
    const projectDir = await tempProject();
    const builder = await replayBuilder(projectDir, {
      'develop.md': artifactDocument('issues', BLOCKER_ISSUES),
    });

    const result = await runGraph({
      projectDir,
      graph: developGraph(),
      inputs: {},
      agentFor: agentsOf(builder.agent),
      runId: 'blocked',
    });

    const artifact = '.agent/artifacts/blocked/issues.json';
    expect(builder.requests).toHaveLength(1);
    expect(result.state.nodes.develop).toMatchObject({
      status: 'failed',
      error: { code: 'blocked' },
      contract: { type: 'development_result', state: 'blocked', attempts: 1, artifact },
    });
    expect(result.state.nodes.review?.status).toBe('skipped');
    expect(result.terminal).toMatchObject({ state: 'blocked', artifact });
    expect(result.terminal?.reason).toContain('node develop is blocked');
    const events = await readEvents(projectDir, 'blocked');
    expect(events.find((event) => event.event === 'node.blocked')).toMatchObject({
      node_id: 'develop',
      artifact,
    });
  });

  it('counts a submission another process made during the attempt (artifact-ingest submit)', async () => {
    const projectDir = await tempProject();
    const submitter: Agent = {
      name: 'builder',
      kind: 'command',
      complete: async (request) => {
        // As `artifact-ingest submit --run-id R --node-id N` does: its own event log and records.
        const outcome = await submitArtifact({
          projectDir,
          runId: request.runId,
          taskId: request.nodeId,
          agentId: 'cli',
          type: 'development_result',
          payload: DEVELOPMENT_RESULT,
        });
        if (!outcome.ok) throw new Error(outcome.message);
        return '# Develop\n\nSubmitted with the CLI.\n';
      },
    };
    const result = await runGraph({
      projectDir,
      graph: developGraph(),
      inputs: {},
      agentFor: agentsOf(submitter),
      runId: 'external',
    });
    expect(result.state.nodes.develop?.contract).toMatchObject({
      state: 'done',
      attempts: 1,
      artifact: '.agent/artifacts/external/development_result.json',
    });
    expect(result.terminal?.state).toBe('done');
  });

  it('submits the artifact blocks of a node without a contract, and leaves the run done', async () => {
    const projectDir = await tempProject();
    const graph = graphOf(
      'plain',
      `nodes:
  - id: notes
    type: write_file
    content: ${JSON.stringify(artifactDocument('development_result', DEVELOPMENT_RESULT))}
    output_path: docs/notes.md
`,
    );
    const result = await runGraph({ projectDir, graph, inputs: {}, agentFor: agentsOf(), runId: 'plain' });
    const artifact = '.agent/artifacts/plain/development_result.json';
    expect(result.status).toBe('completed');
    expect(result.state.nodes.notes?.contract).toBeUndefined();
    expect(await readJson(projectDir, artifact)).toEqual(DEVELOPMENT_RESULT);
    expect(result.terminal).toMatchObject({ state: 'done', artifact, reason: 'every contract satisfied' });
  });

  it('fails an agent error on a node without a contract as before: no re-ask', async () => {
    const projectDir = await tempProject();
    const graph = graphOf(
      'loose',
      'nodes:\n  - id: a\n    type: agent_task\n    agent: builder\n    prompt: x\n    output_path: docs/a.md\n',
    );
    const builder = await replayBuilder(projectDir, {});
    const result = await runGraph({
      projectDir,
      graph,
      inputs: {},
      agentFor: agentsOf(builder.agent),
      runId: 'l',
    });
    expect(builder.requests).toHaveLength(1);
    expect(result.state.nodes.a).toMatchObject({ status: 'failed', error: { code: 'replay_missing' } });
    expect(result.state.nodes.a?.contract).toBeUndefined();
    expect(result.terminal).toMatchObject({ state: 'blocked', artifact: null });
    expect(result.terminal?.reason).toContain('node a failed (replay_missing)');
  });
});
