import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LineageError } from '../../../src/artifacts/index.js';
import { readPathReport } from '../../../src/report/index.js';
import { runCli } from '../../helpers/run-cli.js';
import { treeDigest } from '../../helpers/tree-digest.js';

// Two real runs of the team demo through the CLI; the second changes one line of src/server.js.

const SERVER_OLD = 'server.listen(process.env.PORT ?? 3000);';
const SERVER_NEW = 'server.listen(Number(process.env.PORT ?? 8080));';

let root: string;
let project: string;
let runs: string[];

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'ai-path-report-'));
  project = path.join(root, 'demo');
  expect((await runCli(['demo', '--dir', project])).code).toBe(0);
  const reply = path.join(project, 'replies', 'task_api.md');
  await writeFile(reply, (await readFile(reply, 'utf8')).replace(SERVER_OLD, SERVER_NEW));
  const second = await runCli(['run', 'team', '--project', project, '--input', 'goal=x', '--run-id', 'r2']);
  expect(second.code, second.stderr).toBe(0);
  runs = (await readdir(path.join(project, '.agent', 'runs'))).sort();
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('readPathReport', () => {
  it('lists every version of a path across runs, oldest first, each diffed against the one before', async () => {
    const before = await treeDigest(project);
    const report = await readPathReport(project, 'src/server.js');
    expect(await treeDigest(project)).toBe(before);
    expect(report.path).toBe('workspace/src/server.js');
    expect(report.versions.map((version) => [version.runId, version.taskId, version.agentId])).toEqual([
      [runs.find((run) => run !== 'r2'), 'task_api', 'builder'],
      ['r2', 'task_api', 'builder'],
    ]);
    const [first, second] = report.versions;
    expect(first?.previous).toBeNull();
    expect(first?.diff.kind === 'text' ? first.diff.patch : '').toMatch(/^--- \/dev\/null\n/);
    expect(second).toMatchObject({ previous: first?.artifactId, linesAdded: 1, linesRemoved: 1 });
    expect(second?.diff.kind === 'text' ? second.diff.patch : '').toContain(
      `-${SERVER_OLD}\n+${SERVER_NEW}\n`,
    );
    expect(report.limits.replayCommand).toBe('artifact-ingest log workspace/src/server.js');
    expect(report.problems).toEqual([]);
  });

  it('leaves out the diffs past the total with the replay command of their run', async () => {
    const report = await readPathReport(project, 'workspace/src/server.js', { maxDiffBytesTotal: 1 });
    expect(report.versions[0]?.diff.kind).toBe('text');
    expect(report.versions[1]?.diff).toMatchObject({
      kind: 'omitted',
      command: 'artifact-ingest replay r2 --backward --path workspace/src/server.js',
    });
    expect(report.limits.diffsOmitted).toBe(1);
  });

  it('throws unknown_path for a path no run recorded and for one outside the project, as log does', async () => {
    for (const unknown of ['src/nothing.js', '../outside.js']) {
      const error: unknown = await readPathReport(project, unknown).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(LineageError);
      expect((error as LineageError).code).toBe('unknown_path');
    }
  });
});
