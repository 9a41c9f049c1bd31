import { execFileSync } from 'node:child_process';
import {
  appendFile,
  chmod,
  lstat,
  mkdir,
  readFile,
  rename,
  rm,
  symlink,
  utimes,
  writeFile,
} from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { indexFileOf, rebuildArtifactIndex } from '../../../src/artifacts/store/artifact-index.js';
import { artifactIdOf } from '../../../src/artifacts/artifact-record.js';
import type { ArtifactRecord } from '../../../src/artifacts/artifact-record.js';
import { appendArtifactRecords, readArtifactRecords } from '../../../src/artifacts/store/append-records.js';
import { contentHashOf } from '../../../src/store/content-hash.js';
import { UnknownRunError } from '../../../src/project/index.js';
import { acquireShortLock } from '../../../src/workspace/index.js';
import { tempFileName } from '../../../src/workspace/temp-file-name.js';
import { logPath } from '../../../src/artifacts/lineage/log-path.js';
import { openArtifactRecorder } from '../../../src/artifacts/record/record-artifacts.js';
import { verifyArtifacts } from '../../../src/artifacts/lineage/verify-artifacts.js';
import { recordSteps } from '../../helpers/record-steps.js';
import { tempProject } from '../../helpers/temp-project.js';
import { treeDigest } from '../../helpers/tree-digest.js';
import { parseNodeId, parseRunId } from '../../../src/project/index.js';

const text = (value: string): Uint8Array => new TextEncoder().encode(value);

const objectFileOf = (project: string, hash: string): string => {
  const hex = hash.slice('sha256:'.length);
  return join(project, '.agent/objects/sha256', hex.slice(0, 2), hex.slice(2));
};

/**
 * Two runs recorded as the runtime would, with the files written to the workspace: run-001 writes a.ts and
 * b.ts and its plan, run-002 rewrites a.ts; both end their node with a trace.
 */
async function twoRunProject(): Promise<string> {
  const files = {
    'workspace/src/a.ts': 'export const a = 2;\n',
    'workspace/src/b.ts': 'export const b = 1;\n',
    'docs/plan.md': '# Plan\n',
  };
  const project = await tempProject(files);
  await recordSteps(project, [
    {
      runId: parseRunId('run-001'),
      files: { ...files, 'workspace/src/a.ts': 'export const a = 1;\n' },
      trace: traceOf('run-001'),
    },
    {
      runId: parseRunId('run-002'),
      files: { 'workspace/src/a.ts': files['workspace/src/a.ts'] },
      trace: traceOf('run-002'),
    },
  ]);
  return project;
}

function traceOf(runId: string) {
  return {
    version: 1 as const,
    runId: parseRunId(runId),
    nodeId: parseNodeId('build'),
    agent: 'builder-01',
    graph: { name: 'single', hash: 'a'.repeat(64) },
    promptSha256: null,
    attempt: 1,
    startedAt: '2026-03-01T10:00:00.000Z',
    finishedAt: '2026-03-01T10:00:01.000Z',
    durationMs: 1000,
    outcome: 'completed' as const,
  };
}

describe('verifyArtifacts', () => {
  it('finds no problem in a clean project', async () => {
    const project = await twoRunProject();
    expect(await verifyArtifacts(project)).toEqual({
      scope: {},
      runs: 2,
      records: 6,
      // a.ts twice, b.ts, the plan, two traces (their contents differ by run id).
      objects: { checked: 6, ok: 6 },
      workspaceFiles: { checked: 2, ok: 2 },
      problems: [],
      errors: 0,
      warnings: 0,
    });
  });

  it('verifies one run: its records and objects, and its workspace paths against their newest version', async () => {
    const project = await twoRunProject();
    const report = await verifyArtifacts(project, { runId: 'run-001' });
    expect(report).toMatchObject({
      scope: { runId: parseRunId('run-001') },
      runs: 1,
      records: 4,
      objects: { checked: 4, ok: 4 },
      // run-001's a.ts was rewritten by run-002, whose version is the one on disk: no drift.
      workspaceFiles: { checked: 2, ok: 2 },
      problems: [],
    });
  });

  it('checks each distinct content once', async () => {
    const project = await tempProject({ 'workspace/a.ts': 'same\n', 'workspace/b.ts': 'same\n' });
    const recorder = await openArtifactRecorder(project, { durability: 'none' });
    const base = {
      runId: parseRunId('run-001'),
      taskId: parseNodeId('build'),
      agentId: 'b',
      kind: 'file' as const,
      source: 'ingest' as const,
    };
    await recorder.recordVersions([
      { ...base, path: 'workspace/a.ts', bytes: text('same\n') },
      { ...base, path: 'workspace/b.ts', bytes: text('same\n') },
    ]);
    await recorder.close();
    expect((await verifyArtifacts(project)).objects).toEqual({ checked: 1, ok: 1 });
  });

  it('reports a corrupt object once, naming a record that references it', async () => {
    const project = await twoRunProject();
    const hash = contentHashOf(text('export const b = 1;\n'));
    const file = objectFileOf(project, hash);
    await chmod(file, 0o644);
    await writeFile(file, 'tampered\n');
    const report = await verifyArtifacts(project);
    expect(report.objects).toEqual({ checked: 6, ok: 5 });
    expect(report.problems).toEqual([
      expect.objectContaining({
        code: 'corrupt_object',
        contentHash: hash,
        path: 'workspace/src/b.ts',
        runId: parseRunId('run-001'),
      }),
    ]);
    expect(report.problems[0]?.message).toMatch(/restore it with 'artifact-ingest import'/);
  });

  it('reports a deleted object as missing', async () => {
    const project = await twoRunProject();
    const hash = contentHashOf(text('export const a = 1;\n'));
    await rm(objectFileOf(project, hash));
    const report = await verifyArtifacts(project);
    expect(report.problems).toEqual([
      expect.objectContaining({ code: 'missing_object', contentHash: hash, path: 'workspace/src/a.ts' }),
    ]);
  });

  it('reports a symlink planted in the store as a corrupt object without following it', async () => {
    const project = await twoRunProject();
    const hash = contentHashOf(text('export const b = 1;\n'));
    const file = objectFileOf(project, hash);
    await rm(file);
    await writeFile(join(project, 'elsewhere'), 'export const b = 1;\n');
    await symlink(join(project, 'elsewhere'), file);
    const report = await verifyArtifacts(project);
    expect(report.problems).toEqual([expect.objectContaining({ code: 'corrupt_object', contentHash: hash })]);
  });

  it('reports every object missing, and creates nothing, when the object store is gone', async () => {
    const project = await twoRunProject();
    await rm(join(project, '.agent/objects'), { recursive: true });
    const report = await verifyArtifacts(project);
    expect(report.objects).toEqual({ checked: 6, ok: 0 });
    expect(report.problems.map((problem) => problem.code)).toEqual(Array(6).fill('missing_object'));
    await expect(lstat(join(project, '.agent/objects'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('reports a hand-edited workspace file as modified against its newest version', async () => {
    const project = await twoRunProject();
    await writeFile(join(project, 'workspace/src/a.ts'), 'export const a = 3;\n');
    const report = await verifyArtifacts(project);
    expect(report.workspaceFiles).toEqual({ checked: 2, ok: 1 });
    const latest = (await logPath(project, 'src/a.ts')).versions.at(-1);
    expect(report.problems).toEqual([
      expect.objectContaining({
        code: 'workspace_modified',
        path: 'workspace/src/a.ts',
        runId: parseRunId('run-002'),
        artifactId: latest?.artifactId,
        contentHash: latest?.contentHash,
      }),
    ]);
  });

  it('reports a workspace file that holds an older recorded version as modified', async () => {
    const project = await twoRunProject();
    await writeFile(join(project, 'workspace/src/a.ts'), 'export const a = 1;\n');
    const report = await verifyArtifacts(project, { runId: 'run-001' });
    expect(report.problems).toEqual([
      expect.objectContaining({
        code: 'workspace_modified',
        path: 'workspace/src/a.ts',
        runId: parseRunId('run-002'),
      }),
    ]);
  });

  it('reports a deleted workspace file as missing', async () => {
    const project = await twoRunProject();
    await rm(join(project, 'workspace/src/b.ts'));
    expect((await verifyArtifacts(project)).problems).toEqual([
      expect.objectContaining({ code: 'workspace_missing', path: 'workspace/src/b.ts' }),
    ]);
  });

  it('reports every file of a deleted folder as missing', async () => {
    const project = await twoRunProject();
    await rm(join(project, 'workspace/src'), { recursive: true });
    expect((await verifyArtifacts(project)).problems.map((problem) => [problem.code, problem.path])).toEqual([
      ['workspace_missing', 'workspace/src/a.ts'],
      ['workspace_missing', 'workspace/src/b.ts'],
    ]);
  });

  it('reports a symlink standing where a file was, even one pointing at identical bytes', async () => {
    const project = await twoRunProject();
    await writeFile(join(project, 'copy.ts'), 'export const b = 1;\n');
    await rm(join(project, 'workspace/src/b.ts'));
    await symlink(join(project, 'copy.ts'), join(project, 'workspace/src/b.ts'));
    const [problem, ...rest] = (await verifyArtifacts(project)).problems;
    expect(rest).toEqual([]);
    expect(problem).toMatchObject({ code: 'workspace_not_a_file', path: 'workspace/src/b.ts' });
    expect(problem?.message).toMatch(/^a symlink stands at workspace\/src\/b\.ts/);
  });

  it('reports a symlinked folder above a recorded file without following it', async () => {
    const project = await twoRunProject();
    await mkdir(join(project, 'outside'));
    for (const name of ['a.ts', 'b.ts'])
      await writeFile(join(project, 'outside', name), await readFile(join(project, 'workspace/src', name)));
    await rm(join(project, 'workspace/src'), { recursive: true });
    await symlink(join(project, 'outside'), join(project, 'workspace/src'));
    const problems = (await verifyArtifacts(project)).problems;
    expect(problems.map((problem) => [problem.code, problem.path])).toEqual([
      ['workspace_not_a_file', 'workspace/src/a.ts'],
      ['workspace_not_a_file', 'workspace/src/b.ts'],
    ]);
    expect(problems[0]?.message).toMatch(
      /^a symlink stands at workspace\/src, where a folder of workspace\/src\/a\.ts/,
    );
  });

  it('reports a folder and a FIFO standing where files were, without blocking on the FIFO', async () => {
    const project = await twoRunProject();
    await rm(join(project, 'workspace/src/a.ts'));
    await mkdir(join(project, 'workspace/src/a.ts'));
    await rm(join(project, 'workspace/src/b.ts'));
    execFileSync('mkfifo', [join(project, 'workspace/src/b.ts')]);
    const problems = (await verifyArtifacts(project)).problems;
    expect(problems.map((problem) => problem.code)).toEqual(['workspace_not_a_file', 'workspace_not_a_file']);
    expect(problems[0]?.message).toMatch(/^a folder stands at/);
    expect(problems[1]?.message).toMatch(/^a special file/);
  });

  it('accepts a workspace/ folder that is itself a symlink, as the writer does', async () => {
    const project = await twoRunProject();
    await rename(join(project, 'workspace'), join(project, 'real-workspace'));
    await symlink(join(project, 'real-workspace'), join(project, 'workspace'));
    expect((await verifyArtifacts(project)).problems).toEqual([]);
  });

  it('checks only the workspace paths of the run in scope', async () => {
    const project = await twoRunProject();
    await rm(join(project, 'workspace/src/b.ts'));
    const report = await verifyArtifacts(project, { runId: 'run-002' });
    expect(report.workspaceFiles).toEqual({ checked: 1, ok: 1 });
    expect(report.problems).toEqual([]);
  });

  it('does not compare documents and traces with files on disk', async () => {
    const project = await twoRunProject();
    await rm(join(project, 'docs/plan.md'));
    expect((await verifyArtifacts(project)).problems).toEqual([]);
  });

  it('reports a record appended to a run without the index as index_missing_record', async () => {
    const project = await twoRunProject();
    const path = 'workspace/src/c.ts';
    const contentHash = contentHashOf(text('c\n'));
    const record: ArtifactRecord = {
      artifactId: artifactIdOf({
        runId: parseRunId('run-002'),
        taskId: parseNodeId('build'),
        path,
        contentHash,
      }),
      runId: parseRunId('run-002'),
      taskId: parseNodeId('build'),
      agentId: 'builder-01',
      type: 'file',
      path,
      contentHash,
      createdAt: '2026-03-01T11:00:00.000Z',
      metadata: { bytes: 2, linesAdded: 1, linesRemoved: 0, source: 'ingest' },
    };
    await appendArtifactRecords(project, parseRunId('run-002'), [record]);
    const problems = (await verifyArtifacts(project)).problems;
    expect(problems).toContainEqual(
      expect.objectContaining({
        code: 'index_missing_record',
        artifactId: record.artifactId,
        path,
        runId: parseRunId('run-002'),
      }),
    );
    expect(problems.find((problem) => problem.code === 'index_missing_record')?.message).toMatch(
      /run 'artifact-ingest reindex'/,
    );
    // The scope of one run leaves the index alone.
    expect(
      (await verifyArtifacts(project, { runId: 'run-002' })).problems.map((problem) => problem.code),
    ).not.toContain('index_missing_record');
    await rebuildArtifactIndex(project);
    expect((await verifyArtifacts(project)).problems.map((problem) => problem.code)).not.toContain(
      'index_missing_record',
    );
  });

  it.each([
    ['out of the project by ..', 'workspace/../../../../../../etc/hostname'],
    ['absolute', '/etc/hostname'],
    ['into .git', 'workspace/.git/hooks/pre-commit'],
    ['with a NUL', 'workspace/a\u0000b.ts'],
    ['with a backslash', 'workspace/..\\..\\etc\\hostname'],
    ['with a bidi control', 'workspace/a\u202eb.ts'],
  ])(
    'reports a record whose path is %s as unsafe_record_path, in either scope, and never reads that path',
    async (_what, path) => {
      const project = await twoRunProject();
      await mkdir(join(project, 'workspace/.git/hooks'), { recursive: true });
      await writeFile(join(project, 'workspace/.git/hooks/pre-commit'), 'guessed\n');
      // The content a hostile record guesses: were the path read, a right guess would verify clean (an oracle).
      const guessed = await readFile('/etc/hostname').catch(() => Buffer.from('guessed\n'));
      const contentHash = contentHashOf(path.includes('hostname') ? guessed : text('guessed\n'));
      const run = parseRunId('run-002');
      const record: ArtifactRecord = {
        artifactId: artifactIdOf({ runId: run, taskId: parseNodeId('build'), path, contentHash }),
        runId: run,
        taskId: parseNodeId('build'),
        agentId: 'builder-01',
        type: 'file',
        path,
        contentHash,
        createdAt: '2026-03-01T11:00:00.000Z',
        metadata: { bytes: 9, linesAdded: 1, linesRemoved: 0, source: 'ingest' },
      };
      await appendArtifactRecords(project, run, [record]);
      const before = await treeDigest(project);
      for (const scope of [{}, { runId: 'run-002' }]) {
        const report = await verifyArtifacts(project, scope);
        // Errors only: the run indexes do not list the hand-appended line, which is index drift (a warning).
        const own = report.problems.filter(
          (problem) => problem.artifactId === record.artifactId && problem.severity === 'error',
        );
        expect(own.map((problem) => problem.code)).toEqual(['unsafe_record_path']);
        expect(own[0]).toMatchObject({ severity: 'error', runId: 'run-002', path });
        expect(own[0]?.message).toMatch(/was not read: remove that line \(or the run\)/);
        expect(report.errors).toBeGreaterThan(0);
        // Only the two runs' own workspace paths were compared with the disk.
        expect(report.workspaceFiles.checked).toBe('runId' in scope ? 1 : 2);
      }
      expect(await treeDigest(project)).toBe(before);
    },
  );

  it('reports index records of a deleted run as index_unknown_record', async () => {
    const project = await twoRunProject();
    await rm(join(project, '.agent/runs/run-002'), { recursive: true });
    const problems = (await verifyArtifacts(project)).problems;
    expect(problems).toContainEqual(
      expect.objectContaining({
        code: 'index_unknown_record',
        path: 'workspace/src/a.ts',
        runId: parseRunId('run-002'),
      }),
    );
  });

  it('reports a record copied into another path’s index file as unknown there and missing from its own', async () => {
    const project = await twoRunProject();
    const planIndex = join(project, indexFileOf('docs/plan.md'));
    await appendFile(join(project, indexFileOf('workspace/src/b.ts')), await readFile(planIndex));
    await rm(planIndex);
    const codes = (await verifyArtifacts(project)).problems.map((problem) => [problem.code, problem.path]);
    expect(codes).toEqual([
      ['index_unknown_record', 'docs/plan.md'],
      ['index_missing_record', 'docs/plan.md'],
    ]);
  });

  it('reports unreadable lines of a run and of the index', async () => {
    const project = await twoRunProject();
    await appendFile(join(project, '.agent/runs/run-001/artifacts.jsonl'), '{"broken": true}\n{"trunc');
    await appendFile(join(project, indexFileOf('workspace/src/b.ts')), 'garbage\n');
    const problems = (await verifyArtifacts(project)).problems;
    expect(problems.map((problem) => [problem.code, problem.runId])).toEqual([
      ['invalid_record_line', 'run-001'],
      ['invalid_record_line', 'run-001'],
      ['invalid_record_line', undefined],
    ]);
    expect(problems[1]?.message).toMatch(/no final newline/);
    expect(problems[2]?.message).toMatch(/index\/paths.*run 'artifact-ingest reindex'/);
    // Another run's scope does not report run-001's lines.
    expect((await verifyArtifacts(project, { runId: 'run-002' })).problems).toEqual([]);
  });

  it('throws UnknownRunError for a run without a folder or an id that is no id', async () => {
    const project = await twoRunProject();
    await expect(verifyArtifacts(project, { runId: 'run-404' })).rejects.toBeInstanceOf(UnknownRunError);
    await expect(verifyArtifacts(project, { runId: 'run-404' })).rejects.toThrow(
      `no run "run-404" in .agent/runs/; list the runs with 'artifact-ingest runs'`,
    );
    await expect(verifyArtifacts(project, { runId: '../../run-001' })).rejects.toMatchObject({
      code: 'unknown_run',
    });
  });

  it('rates corruption and drift as errors and index drift as warnings', async () => {
    const project = await twoRunProject();
    await appendFile(join(project, '.agent/runs/run-001/artifacts.jsonl'), 'garbage\n');
    await appendFile(join(project, indexFileOf('workspace/src/b.ts')), 'garbage\n');
    await rm(join(project, indexFileOf('docs/plan.md')));
    await rm(join(project, 'workspace/src/b.ts'));
    await writeFile(join(project, 'workspace/src/a.ts'), 'changed\n');
    const hash = contentHashOf(text('export const b = 1;\n'));
    await rm(objectFileOf(project, hash));
    const report = await verifyArtifacts(project);
    const severities = new Map(
      report.problems.map((problem) => [
        `${problem.code}${problem.runId === undefined ? '' : ' in a run'}`,
        problem.severity,
      ]),
    );
    const expected: readonly (readonly [string, 'error' | 'warning'])[] = [
      ['invalid_record_line in a run', 'error'],
      ['missing_object in a run', 'error'],
      ['workspace_modified in a run', 'error'],
      ['workspace_missing in a run', 'error'],
      ['invalid_record_line', 'warning'],
      ['index_missing_record in a run', 'warning'],
    ];
    for (const [problem, severity] of expected)
      expect([problem, severities.get(problem)]).toEqual([problem, severity]);
    expect(report.errors).toBe(report.problems.filter((problem) => problem.severity === 'error').length);
    expect(report.warnings).toBe(report.problems.length - report.errors);
    expect(report.errors).toBeGreaterThanOrEqual(4);
    expect(report.warnings).toBeGreaterThanOrEqual(2);
  });

  it('counts only warnings when the index alone has drifted', async () => {
    const project = await twoRunProject();
    await rm(join(project, indexFileOf('docs/plan.md')));
    const report = await verifyArtifacts(project);
    expect(report.problems.map((problem) => [problem.code, problem.severity])).toEqual([
      ['index_missing_record', 'warning'],
    ]);
    expect([report.errors, report.warnings]).toEqual([0, 1]);
  });

  it('verifies an empty project', async () => {
    const project = await tempProject();
    expect(await verifyArtifacts(project)).toEqual({
      scope: {},
      runs: 0,
      records: 0,
      objects: { checked: 0, ok: 0 },
      workspaceFiles: { checked: 0, ok: 0 },
      problems: [],
      errors: 0,
      warnings: 0,
    });
  });

  it('leaves the project byte-identical, with problems present', async () => {
    const project = await twoRunProject();
    await writeFile(join(project, 'workspace/src/a.ts'), 'drift\n');
    await rm(objectFileOf(project, contentHashOf(text('export const b = 1;\n'))));
    await appendFile(join(project, '.agent/runs/run-001/artifacts.jsonl'), '{"trunc');
    const before = await treeDigest(project);
    await verifyArtifacts(project);
    await verifyArtifacts(project, { runId: 'run-001' });
    await logPath(project, 'src/a.ts');
    expect(await treeDigest(project)).toEqual(before);
  });

  it('leaves .agent/runs byte-identical when reindexing', async () => {
    const project = await twoRunProject();
    const before = await treeDigest(join(project, '.agent/runs'));
    await rebuildArtifactIndex(project);
    expect(await treeDigest(join(project, '.agent/runs'))).toEqual(before);
  });
});

describe('verifyArtifacts: interrupted ingests and temp files', () => {
  const startedLine = (runId: string, node: string, doc: string, paths: readonly string[]): string =>
    `${JSON.stringify({ level: 'INFO', ts: '2026-03-01T10:00:00.000Z', event: 'ingest.started', run_id: runId, node_id: node, doc_path: doc, planned: paths.length, planned_paths: paths })}\n`;
  const summaryLine = (runId: string, node: string, doc: string): string =>
    `${JSON.stringify({ level: 'INFO', event: 'ingest.summary', run_id: runId, node_id: node, doc_path: doc, dry_run: false })}\n`;

  it('reports an ingest that started and never summarised as an error naming run, node, document and paths', async () => {
    const project = await twoRunProject();
    await writeFile(
      join(project, '.agent/runs/run-002/events.jsonl'),
      startedLine('run-002', 'build', 'docs/plan.md', ['workspace/src/a.ts', 'workspace/src/c.ts']),
    );
    const report = await verifyArtifacts(project);
    expect(report.problems).toEqual([
      {
        code: 'interrupted_ingest',
        severity: 'error',
        message: expect.stringMatching(
          /^the ingest of docs\/plan\.md \(run run-002, node build\) started at .* never finished: workspace\/src\/a\.ts, workspace\/src\/c\.ts may be on disk/,
        ) as string,
        path: 'workspace/src/a.ts',
        runId: 'run-002',
        nodeId: 'build',
        docPath: 'docs/plan.md',
        plannedPaths: ['workspace/src/a.ts', 'workspace/src/c.ts'],
      },
    ]);
    expect(report.errors).toBe(1);
    // The run in scope decides: run-001's events say nothing of it.
    expect((await verifyArtifacts(project, { runId: 'run-001' })).problems).toEqual([]);
    await appendFile(
      join(project, '.agent/runs/run-002/events.jsonl'),
      startedLine('run-002', 'build', 'docs/plan.md', ['workspace/src/a.ts']) +
        summaryLine('run-002', 'build', 'docs/plan.md'),
    );
    expect((await verifyArtifacts(project)).problems).toEqual([]);
  });

  it('leaves out the ingest in progress: what started (and its temp files in workspace/) after a live holder took the workspace lock', async () => {
    const project = await twoRunProject();
    const lock = await acquireShortLock(join(project, '.agent/workspace.lock'), { waitMs: 1000 });
    expect(lock.acquired).toBe(true);
    if (!lock.acquired) return;
    const since = Date.parse(lock.lock.owner.acquired_at);
    const live = startedLine('run-002', 'build', 'docs/live.md', ['workspace/src/l.ts']).replace(
      '2026-03-01T10:00:00.000Z',
      new Date(since + 5).toISOString(),
    );
    await writeFile(
      join(project, '.agent/runs/run-002/events.jsonl'),
      startedLine('run-002', 'build', 'docs/plan.md', ['workspace/src/a.ts']) + live,
    );
    const oldTemp = 'workspace/src/.artifact-ingest-0000000000000000.tmp';
    const liveTemp = 'workspace/src/.artifact-ingest-1111111111111111.tmp';
    await writeFile(join(project, oldTemp), 'killed');
    await utimes(join(project, oldTemp), new Date(since - 60_000), new Date(since - 60_000));
    await writeFile(join(project, liveTemp), 'writing');
    await utimes(join(project, liveTemp), new Date(since + 5), new Date(since + 5));
    const codes = async (): Promise<(string | undefined)[][]> =>
      (await verifyArtifacts(project)).problems.map((problem) => [
        problem.code,
        problem.docPath ?? problem.path,
      ]);
    expect(await codes()).toEqual([
      ['interrupted_ingest', 'docs/plan.md'],
      ['stale_temp_file', oldTemp],
    ]);
    // Once the holder is gone, nothing is in progress: everything left is a dead writer's.
    await lock.lock.release();
    expect(await codes()).toEqual([
      ['interrupted_ingest', 'docs/plan.md'],
      ['interrupted_ingest', 'docs/live.md'],
      ['stale_temp_file', oldTemp],
      ['stale_temp_file', liveTemp],
    ]);
  });

  it('leaves out a temp file whose name names a live process of this host (a write in progress), however old', async () => {
    const project = await twoRunProject();
    const live = join(project, 'workspace/src', tempFileName());
    await writeFile(live, 'writing');
    await utimes(live, new Date(0), new Date(0));
    expect((await verifyArtifacts(project)).problems).toEqual([]);
  });

  it('reports a temp file under workspace/ and .agent/ as a stale_temp_file warning, in any scope', async () => {
    const project = await twoRunProject();
    const temp = '.artifact-ingest-0123456789abcdef.tmp';
    await writeFile(join(project, 'workspace/src', temp), 'half');
    await writeFile(join(project, '.agent/runs/run-001', temp), 'half');
    for (const report of [
      await verifyArtifacts(project),
      await verifyArtifacts(project, { runId: 'run-001' }),
    ]) {
      expect(report.problems.map((problem) => [problem.code, problem.severity, problem.path])).toEqual([
        ['stale_temp_file', 'warning', `.agent/runs/run-001/${temp}`],
        ['stale_temp_file', 'warning', `workspace/src/${temp}`],
      ]);
      expect(report).toMatchObject({ errors: 0, warnings: 2 });
    }
  });

  it("checks a run for temp files where it writes: another run's folder and unrelated objects' folders only in the project's check", async () => {
    const project = await twoRunProject();
    const temp = '.artifact-ingest-0123456789abcdef.tmp';
    await writeFile(join(project, '.agent/runs/run-002', temp), 'half');
    // An objects folder no record of run-001 uses.
    const used = new Set(
      (await readArtifactRecords(project, 'run-001')).records.map((record) => record.contentHash.slice(7, 9)),
    );
    const unused = ['00', '01', '02', 'fe', 'ff'].find((fanout) => !used.has(fanout)) ?? '';
    await mkdir(join(project, '.agent/objects/sha256', unused), { recursive: true });
    await writeFile(join(project, '.agent/objects/sha256', unused, temp), 'half');
    const firstUsed = [...used][0] ?? '';
    await writeFile(join(project, '.agent/objects/sha256', firstUsed, temp), 'half');

    const paths = (report: Awaited<ReturnType<typeof verifyArtifacts>>): (string | undefined)[] =>
      report.problems.map((problem) => problem.path);
    expect(paths(await verifyArtifacts(project, { runId: 'run-001' }))).toEqual([
      `.agent/objects/sha256/${firstUsed}/${temp}`,
    ]);
    expect(paths(await verifyArtifacts(project)).sort()).toEqual(
      [
        `.agent/objects/sha256/${firstUsed}/${temp}`,
        `.agent/objects/sha256/${unused}/${temp}`,
        `.agent/runs/run-002/${temp}`,
      ].sort(),
    );
  });
});
