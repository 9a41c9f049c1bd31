import { chmod, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { LineageError } from '../../../src/artifacts/lineage/lineage-error.js';
import { parseNodeId, parseRunId, UnknownRunError } from '../../../src/project/index.js';
import { openIngestRecords } from '../../../src/artifacts/record/ingest-records.js';
import { readRunTimeline } from '../../../src/artifacts/lineage/read-run-timeline.js';
import { runIngest } from '../../../src/ingest/index.js';
import { replayRun } from '../../../src/artifacts/lineage/replay-run.js';
import type { ReplayArtifact, RunReplay } from '../../../src/artifacts/lineage/replay-run.js';
import { TEXT, twoRunProject } from '../../helpers/lineage-project.js';
import { fileBlock, tempProject } from '../../helpers/temp-project.js';
import { treeDigest } from '../../helpers/tree-digest.js';

function objectFileOf(projectDir: string, hash: string): string {
  const hex = hash.slice('sha256:'.length);
  return path.join(projectDir, '.agent/objects/sha256', hex.slice(0, 2), hex.slice(2));
}

function artifactsOf(replay: RunReplay): [string, string | null, string, string, number, number][] {
  return replay.steps.flatMap((step) =>
    step.artifacts.map((artifact): [string, string | null, string, string, number, number] => [
      step.taskId,
      step.step === null ? null : String(step.step),
      artifact.change,
      artifact.path,
      artifact.linesAdded,
      artifact.linesRemoved,
    ]),
  );
}

function patchOf(artifact: ReplayArtifact | undefined): string {
  if (artifact?.diff?.kind !== 'text') throw new Error(`no text diff: ${JSON.stringify(artifact?.diff)}`);
  return artifact.diff.patch;
}

describe('replayRun forward', () => {
  it('shows each execution in time order with node, agent, prompt hash, timings, outcome and ingest summary', async () => {
    const { projectDir } = await twoRunProject();
    const replay = await replayRun(projectDir, 'run-001');
    expect(replay.direction).toBe('forward');
    expect(replay.before).toBeUndefined();
    expect(replay.steps.map((step) => [step.step, step.taskId, step.agentId, step.outcome])).toEqual([
      [1, 'plan', 'planner', 'completed'],
      [2, 'ui', 'designer', 'completed'],
      [3, 'api', 'builder', 'completed'],
      [null, 'test', 'tester', 'failed'],
      [4, 'test', 'tester', 'completed'],
    ]);
    const [plan] = replay.steps;
    expect(plan).toMatchObject({
      attempt: 1,
      promptSha256: expect.stringMatching(/^[0-9a-f]{64}$/) as string,
      startedAt: '2026-02-24T10:00:01.000Z',
      finishedAt: '2026-02-24T10:00:04.000Z',
      durationMs: 3000,
      traceId: expect.stringMatching(/^art-/) as string,
      ingest: { total_blocks: 1, written: 1, skipped: 0, rejected: 0 },
    });
    expect(replay.steps[3]?.error).toEqual({ code: 'agent_failed', message: 'test gave up' });
    expect(replay.steps[4]?.attempt).toBe(2);
  });

  it('lists the artifacts each step created or changed, with line counts against the previous version', async () => {
    const { projectDir } = await twoRunProject();
    expect(artifactsOf(await replayRun(projectDir, 'run-001'))).toEqual([
      ['plan', '1', 'created', 'docs/plan.md', 4, 0],
      ['plan', '1', 'created', 'workspace/README.md', 1, 0],
      ['ui', '2', 'created', 'workspace/src/ui.ts', 1, 0],
      ['api', '3', 'created', 'workspace/src/api.ts', 3, 0],
      ['api', '3', 'created', 'workspace/src/shared.ts', 1, 0],
      ['test', null, 'created', 'workspace/test/api.test.ts', 1, 0],
      ['test', '4', 'changed', 'workspace/test/api.test.ts', 3, 1],
    ]);
    const replay = await replayRun(projectDir, 'run-002');
    expect(artifactsOf(replay)).toEqual([
      ['fix', '1', 'changed', 'workspace/src/api.ts', 1, 1],
      ['fix', '1', 'created', 'workspace/assets/logo.png', 0, 0],
      ['docs', '2', 'changed', 'workspace/README.md', 2, 0],
    ]);
    const logo = replay.steps[0]?.artifacts[1];
    expect(logo).toMatchObject({ type: 'design', previous: null, bytes: 11 });
    expect(replay.steps[0]?.artifacts[0]?.previous).toMatch(/^art-/);
  });

  it('lists the versions of an interrupted execution as unfinished', async () => {
    const { projectDir } = await twoRunProject();
    const replay = await replayRun(projectDir, 'run-002');
    expect(replay.unfinished.map((artifact) => [artifact.taskId, artifact.path, artifact.change])).toEqual([
      ['ui2', 'workspace/src/ui.ts', 'changed'],
    ]);
  });

  it.each([
    ['workspace/src/api.ts', 'workspace/src/api.ts'],
    ['src/api.ts', 'workspace/src/api.ts'],
    ['./src/api.ts', 'workspace/src/api.ts'],
  ])('filters to one path given as %s', async (given, resolved) => {
    const { projectDir } = await twoRunProject();
    const replay = await replayRun(projectDir, 'run-001', { path: given });
    expect(replay.path).toBe(resolved);
    expect(artifactsOf(replay)).toEqual([['api', '3', 'created', 'workspace/src/api.ts', 3, 0]]);
  });

  it('filters to a node document given as docs/plan.md', async () => {
    const { projectDir } = await twoRunProject();
    const replay = await replayRun(projectDir, 'run-001', { path: 'docs/plan.md' });
    expect(artifactsOf(replay)).toEqual([['plan', '1', 'created', 'docs/plan.md', 4, 0]]);
  });

  it('throws unknown_path for a path the run recorded no version of', async () => {
    const { projectDir } = await twoRunProject();
    const error = await replayRun(projectDir, 'run-002', { path: 'src/shared.ts' }).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(LineageError);
    expect((error as LineageError).code).toBe('unknown_path');
    expect((error as LineageError).message).toContain("'artifact-ingest replay run-002'");
  });

  it('throws UnknownRunError for a run without a folder', async () => {
    const { projectDir } = await twoRunProject();
    await expect(replayRun(projectDir, 'run-003')).rejects.toMatchObject({ code: 'unknown_run' });
    await expect(replayRun(projectDir, 'run-003')).rejects.toBeInstanceOf(UnknownRunError);
  });
});

describe('replayRun backward', () => {
  it('walks from the final state back: unfinished first, then steps and their artifacts newest first', async () => {
    const { projectDir } = await twoRunProject();
    const replay = await replayRun(projectDir, 'run-001', { backward: true });
    expect(replay.direction).toBe('backward');
    expect(replay.steps.map((step) => [step.step, step.taskId])).toEqual([
      [4, 'test'],
      [null, 'test'],
      [3, 'api'],
      [2, 'ui'],
      [1, 'plan'],
    ]);
    expect(replay.steps[2]?.artifacts.map((artifact) => artifact.path)).toEqual([
      'workspace/src/shared.ts',
      'workspace/src/api.ts',
    ]);
  });

  it('diffs a first version from empty and a change from its previous version', async () => {
    const { projectDir } = await twoRunProject();
    const replay = await replayRun(projectDir, 'run-001', { backward: true });
    const [retry, failed] = replay.steps;
    const first = failed?.artifacts[0];
    expect(patchOf(first)).toBe(
      `--- /dev/null\n+++ b/workspace/test/api.test.ts\t${first?.artifactId}\n@@ -0,0 +1,1 @@\n+test('api', () => {});\n`,
    );
    const change = retry?.artifacts[0];
    expect(change?.previous).toBe(first?.artifactId);
    expect(patchOf(change)).toBe(
      [
        `--- a/workspace/test/api.test.ts\t${first?.artifactId}`,
        `+++ b/workspace/test/api.test.ts\t${change?.artifactId}`,
        '@@ -1,1 +1,3 @@',
        "-test('api', () => {});",
        "+test('api', () => {",
        '+  expect(api()).toBe(2);',
        '+});',
        '',
      ].join('\n'),
    );
  });

  it('diffs a change against a previous version made by another run', async () => {
    const { projectDir } = await twoRunProject();
    const replay = await replayRun(projectDir, 'run-002', { backward: true, path: 'src/api.ts' });
    const patch = patchOf(replay.steps[0]?.artifacts[0]);
    expect(patch).toContain('-  return 1;\n+  return 2;\n');
    expect(patch).toMatch(/^--- a\/workspace\/src\/api\.ts\tart-[0-9a-f]{12}\n/);
  });

  it('names binary content instead of diffing it', async () => {
    const { projectDir } = await twoRunProject();
    const replay = await replayRun(projectDir, 'run-002', { backward: true, path: 'assets/logo.png' });
    expect(replay.steps[0]?.artifacts[0]?.diff).toEqual({
      kind: 'binary',
      message: 'binary content (0 -> 11 bytes); no text diff',
    });
  });

  it('diffs unfinished versions too, listed before the steps', async () => {
    const { projectDir } = await twoRunProject();
    const replay = await replayRun(projectDir, 'run-002', { backward: true });
    expect(patchOf(replay.unfinished[0])).toContain(`-${TEXT.ui.trimEnd()}\n+${TEXT.ui2.trimEnd()}\n`);
  });

  it('ends with no earlier versions for a project first run', async () => {
    const { projectDir } = await twoRunProject();
    const replay = await replayRun(projectDir, 'run-001', { backward: true });
    expect(replay.before).toEqual([]);
  });

  it('ends with the versions run 1 left for the paths run 2 touched', async () => {
    const { projectDir } = await twoRunProject();
    const run1 = await replayRun(projectDir, 'run-001');
    const run1Final = new Map(run1.steps.flatMap((step) => step.artifacts).map((a) => [a.path, a]));
    const replay = await replayRun(projectDir, 'run-002', { backward: true });
    expect(replay.before?.map((version) => [version.path, version.runId, version.artifactId])).toEqual(
      ['workspace/README.md', 'workspace/src/api.ts', 'workspace/src/ui.ts'].map((p) => [
        p,
        'run-001',
        run1Final.get(p)?.artifactId,
      ]),
    );
    expect(replay.before?.[0]).toMatchObject({ taskId: 'plan', bytes: TEXT.readme1.length });
  });

  it('reports a missing object as an unavailable diff instead of failing the replay', async () => {
    const { projectDir } = await twoRunProject();
    const forward = await replayRun(projectDir, 'run-002', { path: 'README.md' });
    const readme = forward.steps[0]?.artifacts[0];
    if (readme === undefined) throw new Error('no README version');
    const file = objectFileOf(projectDir, readme.contentHash);
    await chmod(file, 0o644);
    await rm(file);
    const replay = await replayRun(projectDir, 'run-002', { backward: true, path: 'README.md' });
    expect(replay.steps[0]?.artifacts[0]?.diff).toMatchObject({
      kind: 'unavailable',
      reason: 'missing_object',
      message: expect.stringContaining('workspace/README.md') as string,
    });
  });

  it('reports a corrupt previous version as an unavailable diff', async () => {
    const { projectDir } = await twoRunProject();
    const replay1 = await replayRun(projectDir, 'run-001', { path: 'src/api.ts' });
    const api1 = replay1.steps[0]?.artifacts[0];
    if (api1 === undefined) throw new Error('no api version');
    const file = objectFileOf(projectDir, api1.contentHash);
    await chmod(file, 0o644);
    await writeFile(file, 'tampered\n');
    const replay = await replayRun(projectDir, 'run-002', { backward: true, path: 'src/api.ts' });
    expect(replay.steps[0]?.artifacts[0]?.diff).toMatchObject({
      kind: 'unavailable',
      reason: 'corrupt_object',
    });
  });
});

describe('replayRun is read-only', () => {
  it('leaves .agent/ and the workspace byte-identical, forward and backward', async () => {
    const { projectDir } = await twoRunProject();
    const agent = await treeDigest(path.join(projectDir, '.agent'));
    const workspace = await treeDigest(path.join(projectDir, 'workspace'));
    for (const runId of ['run-001', 'run-002']) {
      await replayRun(projectDir, runId);
      await replayRun(projectDir, runId, { backward: true });
      await replayRun(projectDir, runId, { backward: true, path: 'src/api.ts' });
    }
    expect(await treeDigest(path.join(projectDir, '.agent'))).toBe(agent);
    expect(await treeDigest(path.join(projectDir, 'workspace'))).toBe(workspace);
  });
});

describe('replayRun of a run made by ingest --run-id', () => {
  /** Ingests documents as `artifact-ingest ingest --run-id cli-run` does: the real ingest, then its records. */
  async function ingestRun(
    projectDir: string,
    documents: readonly (readonly [string, string])[],
  ): Promise<void> {
    const runId = parseRunId('cli-run');
    const records = openIngestRecords({ projectDir, runId, durability: 'none', onFailure: () => undefined });
    try {
      for (const [docPath, nodeId] of documents) {
        const result = await runIngest({
          projectDir,
          docPath,
          runId,
          nodeId: parseNodeId(nodeId),
          sourceKind: 'cli',
          durability: 'none',
        });
        await records.recordIngested(parseNodeId(nodeId), 'cli', result.contents, docPath);
      }
    } finally {
      await records.close();
    }
  }

  it('shows one completed step per ingest, in record order, with the files it placed and nothing unfinished', async () => {
    const projectDir = await tempProject({
      'docs/plan.md': fileBlock('ts', 'src/a.ts', 'export const a = 1;') + fileBlock('ts', 'src/b.ts', 'b'),
      'docs/fix.md': fileBlock('ts', 'src/a.ts', 'export const a = 2;'),
    });
    await ingestRun(projectDir, [
      ['docs/plan.md', 'plan'],
      ['docs/fix.md', 'fix'],
    ]);

    const timeline = await readRunTimeline(projectDir, 'cli-run');
    expect(timeline.kind).toBe('ingest');
    expect(timeline.unfinished).toEqual([]);
    expect(timeline.problems).toEqual([]);
    expect(timeline.steps.map((step) => [step.kind, step.step, step.taskId, step.manifest?.docPath])).toEqual(
      [
        ['ingest', 1, 'plan', 'docs/plan.md'],
        ['ingest', 2, 'fix', 'docs/fix.md'],
      ],
    );

    const replay = await replayRun(projectDir, 'cli-run');
    expect(replay).toMatchObject({
      runId: 'cli-run',
      kind: 'ingest',
      direction: 'forward',
      graph: null,
      unfinished: [],
    });
    expect(replay.startedAt).not.toBeNull();
    expect(
      replay.steps.map((step) => ({
        step: step.step,
        taskId: step.taskId,
        agentId: step.agentId,
        outcome: step.outcome,
        traceId: step.traceId,
        written: step.ingest?.written,
        files: step.artifacts.map((artifact) => [artifact.path, artifact.change]),
      })),
    ).toEqual([
      {
        step: 1,
        taskId: 'plan',
        agentId: 'cli',
        outcome: 'completed',
        traceId: null,
        written: 2,
        files: [
          ['workspace/src/a.ts', 'created'],
          ['workspace/src/b.ts', 'created'],
        ],
      },
      {
        step: 2,
        taskId: 'fix',
        agentId: 'cli',
        outcome: 'completed',
        traceId: null,
        written: 1,
        files: [['workspace/src/a.ts', 'changed']],
      },
    ]);

    const backward = await replayRun(projectDir, 'cli-run', { backward: true });
    expect(backward.steps.map((step) => step.taskId)).toEqual(['fix', 'plan']);
    expect(backward.steps[0]?.artifacts[0]?.diff).toMatchObject({ kind: 'text' });
    expect(backward.unfinished).toEqual([]);
  });

  it('still calls the versions of a graph run without a trace after them unfinished', async () => {
    const projectDir = await tempProject({
      'docs/plan.md': fileBlock('ts', 'src/a.ts', 'export const a = 1;'),
      // A graph run has state.json: its versions without a trace are an interrupted execution.
      '.agent/runs/cli-run/state.json': '{}',
    });
    await ingestRun(projectDir, [['docs/plan.md', 'plan']]);
    const timeline = await readRunTimeline(projectDir, 'cli-run');
    expect(timeline.kind).toBe('graph');
    expect(timeline.steps).toEqual([]);
    expect(timeline.unfinished.map((record) => record.path)).toEqual(['workspace/src/a.ts']);
  });
});
