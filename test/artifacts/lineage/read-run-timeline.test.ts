import { chmod, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { appendArtifactRecords } from '../../../src/artifacts/store/append-records.js';
import { UnknownRunError } from '../../../src/project/index.js';
import { readRunTimeline } from '../../../src/artifacts/lineage/read-run-timeline.js';
import { lineageWriter, twoRunProject } from '../../helpers/lineage-project.js';
import { tempProject } from '../../helpers/temp-project.js';
import { parseNodeId, parseRunId } from '../../../src/project/index.js';

function objectFileOf(projectDir: string, hash: string): string {
  const hex = hash.slice('sha256:'.length);
  return path.join(projectDir, '.agent/objects/sha256', hex.slice(0, 2), hex.slice(2));
}

describe('readRunTimeline', () => {
  it('lists executions in the order their traces were written, with the graph and the run start', async () => {
    const { projectDir } = await twoRunProject();
    const timeline = await readRunTimeline(projectDir, 'run-001');
    expect(timeline.runId).toBe('run-001');
    expect(timeline.graph?.name).toBe('team');
    expect(timeline.graph?.hash).toMatch(/^[0-9a-f]{64}$/);
    // The plan node started one tick before its first record.
    expect(timeline.startedAt).toBe('2026-02-24T10:00:01.000Z');
    expect(timeline.steps.map((step) => [step.step, step.taskId, step.agentId, step.outcome])).toEqual([
      [1, 'plan', 'planner', 'completed'],
      [2, 'ui', 'designer', 'completed'],
      [3, 'api', 'builder', 'completed'],
      [null, 'test', 'tester', 'failed'],
      [4, 'test', 'tester', 'completed'],
    ]);
    expect(timeline.unfinished).toEqual([]);
    expect(timeline.problems).toEqual([]);
  });

  it('assigns interleaved records of concurrent nodes to the next trace of their own task', async () => {
    const { projectDir } = await twoRunProject();
    const { steps } = await readRunTimeline(projectDir, 'run-001');
    const paths = (index: number): string[] =>
      steps[index]?.artifacts.map((record) => record.path) ?? ['missing step'];
    expect(paths(0)).toEqual(['docs/plan.md', 'workspace/README.md']);
    expect(paths(1)).toEqual(['workspace/src/ui.ts']);
    expect(paths(2)).toEqual(['workspace/src/api.ts', 'workspace/src/shared.ts']);
    // A retry's records follow the failed attempt's trace, so each attempt keeps its own version.
    expect(paths(3)).toEqual(['workspace/test/api.test.ts']);
    expect(paths(4)).toEqual(['workspace/test/api.test.ts']);
    expect(steps[3]?.artifacts[0]?.artifactId).not.toBe(steps[4]?.artifacts[0]?.artifactId);
  });

  it('gives a failed execution no step number and keeps its trace content', async () => {
    const { projectDir } = await twoRunProject();
    const failed = (await readRunTimeline(projectDir, 'run-001')).steps[3];
    expect(failed?.step).toBeNull();
    expect(failed?.content!.error).toEqual({ code: 'agent_failed', message: 'test gave up' });
    expect(failed?.trace!.type).toBe('trace');
    expect(failed?.trace!.path).toBe('.agent/runs/run-001/traces/test.json');
  });

  it('reports versions no trace of their task followed as unfinished (an interrupted execution)', async () => {
    const { projectDir } = await twoRunProject();
    const timeline = await readRunTimeline(projectDir, 'run-002');
    expect(timeline.steps.map((step) => step.taskId)).toEqual(['fix', 'docs']);
    expect(timeline.unfinished.map((record) => [record.taskId, record.path])).toEqual([
      ['ui2', 'workspace/src/ui.ts'],
    ]);
  });

  it('throws UnknownRunError, naming the runs command, for a run without a folder', async () => {
    const { projectDir } = await twoRunProject();
    for (const runId of ['run-404', '../../run-001', '']) {
      const error = await readRunTimeline(projectDir, runId).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(UnknownRunError);
      expect((error as UnknownRunError).code).toBe('unknown_run');
      expect((error as UnknownRunError).message).toBe(
        `no run ${JSON.stringify(runId)} in .agent/runs/; list the runs with 'artifact-ingest runs'`,
      );
    }
  });

  it('reads a run folder without artifacts.jsonl as an empty timeline', async () => {
    const projectDir = await tempProject({ '.agent/runs/run-old/state.json': '{}' });
    expect(await readRunTimeline(projectDir, 'run-old')).toEqual({
      runId: parseRunId('run-old'),
      kind: 'graph',
      graph: null,
      startedAt: null,
      steps: [],
      unfinished: [],
      problems: [],
    });
  });

  it('reports a corrupt trace object as unreadable_trace and leaves its execution out of the steps', async () => {
    const { projectDir } = await twoRunProject();
    const before = await readRunTimeline(projectDir, 'run-001');
    const ui = before.steps[1];
    if (ui === undefined) throw new Error('fixture has no ui step');
    const file = objectFileOf(projectDir, ui.trace!.contentHash);
    await chmod(file, 0o644);
    await writeFile(file, '{"tampered": true}\n');
    const after = await readRunTimeline(projectDir, 'run-001');
    expect(after.steps.map((step) => [step.step, step.taskId])).toEqual([
      [1, 'plan'],
      [2, 'api'],
      [null, 'test'],
      [3, 'test'],
    ]);
    expect(after.problems).toEqual([
      expect.objectContaining({
        code: 'unreadable_trace',
        artifactId: ui.trace!.artifactId,
        taskId: parseNodeId('ui'),
        reason: 'corrupt_object',
      }),
    ]);
  });

  it('reports a trace whose object is valid JSON of another node as invalid_trace', async () => {
    const writer = await lineageWriter();
    const a = writer.start('run-1', 'a', 'agent');
    await a.finish();
    await writer.close();
    // The same trace content recorded under another task: the bytes verify, the node does not match.
    const [trace] = (await readRunTimeline(writer.projectDir, 'run-1')).steps.map((step) => step.trace);
    if (trace == null) throw new Error('no trace recorded');
    await appendArtifactRecords(writer.projectDir, parseRunId('run-1'), [
      { ...trace, taskId: parseNodeId('b'), path: '.agent/runs/run-1/traces/b.json' },
    ]);
    const timeline = await readRunTimeline(writer.projectDir, 'run-1');
    expect(timeline.steps.map((step) => step.taskId)).toEqual(['a']);
    expect(timeline.problems).toEqual([
      expect.objectContaining({
        code: 'unreadable_trace',
        taskId: parseNodeId('b'),
        reason: 'invalid_trace',
      }),
    ]);
  });

  it('passes on unreadable lines of artifacts.jsonl as problems', async () => {
    const writer = await lineageWriter();
    const a = writer.start('run-1', 'a', 'agent');
    await a.write({ 'a.txt': 'a\n' });
    await a.finish();
    await writer.close();
    const file = path.join(writer.projectDir, '.agent/runs/run-1/artifacts.jsonl');
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, '{"half": ', { flag: 'a' });
    const timeline = await readRunTimeline(writer.projectDir, 'run-1');
    expect(timeline.steps).toHaveLength(1);
    expect(timeline.problems).toEqual([expect.objectContaining({ code: 'truncated_line', line: 3 })]);
  });
});
