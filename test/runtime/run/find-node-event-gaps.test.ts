import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseRunId } from '../../../src/project/index.js';
import { findGraphEventGaps, findNodeEventGaps } from '../../../src/runtime/run/find-node-event-gaps.js';
import { runGraph } from '../../../src/runtime/run/run-graph.js';
import type { RunState } from '../../../src/runs/index.js';
import { spawnCli } from '../../helpers/run-cli.js';
import { readEvents, tempProject } from '../../helpers/temp-project.js';
import {
  agentsOf,
  markerAgent,
  readState,
  resumeGraph,
  spawnRunChild,
  waitFor,
} from './fixtures/run-graph-fixtures.js';

// Issue 23: a graph runner killed between a node's ending transition and its event lost the event for good
// (a resume keeps the completed node). Found by verify, appended by the resume, marked recovered (D89).

const eventsFile = (projectDir: string, runId: string): string =>
  path.join(projectDir, '.agent/runs', runId, 'events.jsonl');

/** Drops the events matching `drop` from the run's log, as a kill right after the node's transition leaves it. */
async function dropEvents(
  projectDir: string,
  runId: string,
  drop: (line: Record<string, unknown>) => boolean,
): Promise<void> {
  const kept = (await readEvents(projectDir, runId)).filter((line) => !drop(line));
  await writeFile(eventsFile(projectDir, runId), kept.map((line) => `${JSON.stringify(line)}\n`).join(''));
}

describe('the ending events of nodes a killed runner did not append', () => {
  it('are reported by verify and appended by the resume, marked recovered, once', async () => {
    const projectDir = await tempProject();
    const scratch = await tempProject();
    const markerDir = path.join(scratch, 'markers');
    const { child, exited } = spawnRunChild({
      projectDir,
      runId: 'killed',
      markerDir,
      graph: 'resume',
      holdNode: 'n3',
      releaseFile: path.join(scratch, 'never-created'),
      ingest: false,
    });
    try {
      await waitFor('n1, n2 and n5 completed and n3 running in the child, with their events', async () => {
        if (child.exitCode !== null) throw new Error(`child exited early: ${(await exited).stderr}`);
        try {
          const state = await readState(projectDir, 'killed');
          // The events too: a kill between a transition and its event is what this test makes by hand.
          const events = await readEvents(projectDir, 'killed');
          const logged = (event: string, nodeId: string): boolean =>
            events.some((line) => line.event === event && line.node_id === nodeId);
          return (
            state.nodes.n1?.status === 'completed' &&
            state.nodes.n2?.status === 'completed' &&
            state.nodes.n5?.status === 'completed' &&
            state.nodes.n3?.status === 'running' &&
            ['n1', 'n2', 'n5'].every((id) => logged('node.completed', id)) &&
            logged('node.started', 'n3')
          );
        } catch {
          return false;
        }
      });
      child.kill('SIGKILL');
      expect((await exited).signal).toBe('SIGKILL');
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
    const runId = parseRunId('killed');
    expect(await findGraphEventGaps(projectDir, [runId])).toEqual([]);
    await dropEvents(
      projectDir,
      'killed',
      (line) => line.event === 'node.completed' && line.node_id === 'n2',
    );
    const killed = await readState(projectDir, 'killed');

    const gaps = await findGraphEventGaps(projectDir, [runId]);
    expect(gaps).toEqual([
      {
        runId: 'killed',
        nodeId: 'n2',
        status: 'completed',
        derived: {
          level: 'INFO',
          event: 'node.completed',
          fields: expect.objectContaining({
            node_id: 'n2',
            recovered: true,
            output_path: killed.nodes.n2?.output_path,
            sha256: killed.nodes.n2?.output_sha256,
          }) as unknown,
        },
      },
    ]);
    const verify = await spawnCli(['verify', 'killed', '--project', projectDir, '--json']);
    expect(verify.code).toBe(1);
    const report = JSON.parse(verify.stdout) as {
      problems: { code: string; nodeId?: string; message: string }[];
    };
    expect(report.problems).toEqual([
      expect.objectContaining({
        code: 'events_gap',
        nodeId: 'n2',
        message: expect.stringContaining(
          'node n2 is completed in its state but events.jsonl has no node.completed for it',
        ) as unknown,
      }),
    ]);

    const resumed = await runGraph({
      projectDir,
      graph: resumeGraph(),
      inputs: {},
      agentFor: agentsOf(markerAgent('worker', { markerDir })),
      runId: 'killed',
      resume: true,
    });
    expect(resumed.status).toBe('completed');
    const events = await readEvents(projectDir, 'killed');
    const restart = events.findIndex((line) => line.event === 'run.started' && line.resumed === true);
    expect(events.filter((line) => line.recovered === true)).toEqual([
      expect.objectContaining({ event: 'node.completed', node_id: 'n2', run_id: 'killed' }),
    ]);
    // Appended before the resumed invocation's own events: it tells of the killed one.
    expect(events.findIndex((line) => line.recovered === true)).toBeLessThan(restart);
    expect(await findGraphEventGaps(projectDir, [runId])).toEqual([]);
    expect((await spawnCli(['verify', 'killed', '--project', projectDir])).code).toBe(0);
  });

  it('derive a failed node’s node.failed and a skipped node’s node.skipped from their state', async () => {
    const projectDir = await tempProject({ '.agent/runs/ended/.keep': '' });
    const runId = parseRunId('ended');
    await writeFile(
      path.join(projectDir, '.agent/runs/ended/events.jsonl'),
      ['node.started', 'node.failed', 'node.started']
        .map((event) => `${JSON.stringify({ event, node_id: 'e' })}\n`)
        .join('') + `${JSON.stringify({ event: 'node.failed', node_id: 'e' })}\n`,
    );
    const state = {
      run_id: runId,
      nodes: {
        a: { status: 'failed', attempts: 1, error: { code: 'agent_failed', message: 'exit 3' } },
        b: { status: 'skipped', attempts: 0, error: { code: 'dependency_failed', message: 'not run' } },
        c: { status: 'pending', attempts: 0 },
        d: { status: 'running', attempts: 1 },
        e: { status: 'failed', attempts: 2, error: { code: 'agent_failed', message: 'again' } },
      },
    } as unknown as RunState;
    expect(await findNodeEventGaps(projectDir, state)).toEqual([
      {
        runId: 'ended',
        nodeId: 'a',
        status: 'failed',
        derived: {
          level: 'ERROR',
          event: 'node.failed',
          fields: { node_id: 'a', recovered: true, code: 'agent_failed', message: 'exit 3' },
        },
      },
      {
        runId: 'ended',
        nodeId: 'b',
        status: 'skipped',
        derived: {
          level: 'WARNING',
          event: 'node.skipped',
          fields: { node_id: 'b', recovered: true, code: 'dependency_failed', message: 'not run' },
        },
      },
    ]);
  });
});
