import { chmod, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { artifactIdOf } from '../../src/artifacts/artifact-record.js';
import { appendArtifactRecords } from '../../src/artifacts/store/append-records.js';
import { contentHashOf } from '../../src/store/content-hash.js';
import { parseNodeId, parseRunId } from '../../src/project/index.js';
import { runCli } from '../helpers/run-cli.js';
import { recordSteps } from '../helpers/record-steps.js';
import { tempProject } from '../helpers/temp-project.js';
import { treeDigest } from '../helpers/tree-digest.js';

const text = (value: string): Uint8Array => new TextEncoder().encode(value);

/** Two runs, as the runtime records them, with the files on disk: run-002 rewrites a.ts. */
async function twoRunProject(): Promise<string> {
  const project = await tempProject({
    'workspace/src/a.ts': 'a\nB\nc\nd\n',
    'workspace/src/b.ts': 'b\n',
    'docs/plan.md': '# Plan\n',
  });
  await recordSteps(project, [
    {
      runId: 'run-001',
      files: { 'workspace/src/a.ts': 'a\nb\nc\n', 'workspace/src/b.ts': 'b\n', 'docs/plan.md': '# Plan\n' },
    },
    { runId: 'run-002', taskId: 'fix', agentId: 'fixer-02', files: { 'workspace/src/a.ts': 'a\nB\nc\nd\n' } },
  ]);
  return project;
}

describe('artifact-ingest log', () => {
  it('prints the versions of a path across runs as a table', async () => {
    const project = await twoRunProject();
    const result = await runCli(['log', 'src/a.ts', '--project', project]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('workspace/src/a.ts: 2 version(s)');
    expect(lines[1]).toMatch(/^time\s+run\s+node\s+agent\s+type\s+lines\s+hash\s+artifact$/);
    const hash = contentHashOf(text('a\nB\nc\nd\n')).slice('sha256:'.length, 'sha256:'.length + 12);
    const id = artifactIdOf({
      runId: parseRunId('run-002'),
      taskId: parseNodeId('fix'),
      path: 'workspace/src/a.ts',
      contentHash: contentHashOf(text('a\nB\nc\nd\n')),
    });
    expect(lines[2]).toMatch(
      /^2026-03-01T10:00:00\.000Z\s+run-001\s+build\s+builder-01\s+file\s+\+3 -0\s+[0-9a-f]{12}\s+art-/,
    );
    expect(lines[3]).toMatch(
      new RegExp(
        `^2026-03-01T10:00:03\\.000Z\\s+run-002\\s+fix\\s+fixer-02\\s+file\\s+\\+2 -1\\s+${hash}\\s+${id}$`,
      ),
    );
    expect(lines).toHaveLength(4);
  });

  it('prints the versions as JSON with --json, run from inside the project', async () => {
    const project = await twoRunProject();
    const result = await runCli(['log', 'workspace/src/a.ts', '--json'], { cwd: project });
    expect(result.code).toBe(0);
    const log = JSON.parse(result.stdout) as {
      path: string;
      versions: { runId: string; linesAdded: number }[];
    };
    expect(log.path).toBe('workspace/src/a.ts');
    expect(log.versions.map((version) => [version.runId, version.linesAdded])).toEqual([
      ['run-001', 3],
      ['run-002', 2],
    ]);
  });

  it('finds the versions by an absolute path typed through a symlink to the project', async () => {
    const project = await twoRunProject();
    const parent = await tempProject();
    await symlink(project, join(parent, 'linked'));
    const result = await runCli(['log', join(parent, 'linked/workspace/src/a.ts'), '--json'], {
      cwd: project,
    });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ path: 'workspace/src/a.ts' });
  });

  it('exits 1 with a hint for a path without recorded versions', async () => {
    const project = await twoRunProject();
    const result = await runCli(['log', 'src/none.ts', '--project', project]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(
      /^artifact-ingest: no recorded versions of workspace\/src\/none\.ts; paths look like/,
    );
    expect(result.stderr).toMatch(/artifact-ingest reindex/);
  });

  it('exits 2 with unknown_path guidance for a path outside the project', async () => {
    const project = await twoRunProject();
    const result = await runCli(['log', '../x.ts', '--project', project]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^artifact-ingest: unknown_path: /);
    expect(result.stderr).toMatch(/contains a '\.\.' segment; paths look like workspace\/src\/a\.ts/);
  });

  it.each([
    [['log'], /log takes exactly one PATH/],
    [['log', 'a.ts', 'b.ts'], /log takes exactly one PATH/],
    [['log', 'a.ts', '--bogus'], /unknown option '--bogus'/],
  ])('exits 2 on %j', async (args, message) => {
    const project = await twoRunProject();
    const result = await runCli([...args, '--project', project]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).toMatch(/Run 'artifact-ingest log --help' for usage\./);
  });

  it('prints its help', async () => {
    const result = await runCli(['log', '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Usage: artifact-ingest log PATH/);
  });
});

describe('artifact-ingest verify', () => {
  it('prints a summary of a clean project and exits 0, also with --strict', async () => {
    const project = await twoRunProject();
    for (const extra of [[], ['--strict']]) {
      const result = await runCli(['verify', '--project', project, ...extra]);
      expect(result.code).toBe(0);
      expect(result.stdout).toBe(
        'verified 2 run(s), 4 record(s): objects 4/4 ok, workspace files 2/2 ok; no problems\n',
      );
    }
  });

  it('prints one line per problem and exits 1 on corruption and drift, with or without --strict', async () => {
    const project = await twoRunProject();
    await writeFile(join(project, 'workspace/src/a.ts'), 'edited by hand\n');
    const hex = contentHashOf(text('b\n')).slice('sha256:'.length);
    const object = join(project, '.agent/objects/sha256', hex.slice(0, 2), hex.slice(2));
    await chmod(object, 0o644);
    await writeFile(object, 'tampered');
    const lenient = await runCli(['verify', '--project', project]);
    expect(lenient.code).toBe(1);
    const lines = lenient.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe(
      'verified 2 run(s), 4 record(s): objects 3/4 ok, workspace files 1/2 ok; 2 problem(s)',
    );
    expect(lines.slice(1).map((line) => line.split(':')[0])).toEqual([
      'corrupt_object',
      'workspace_modified',
    ]);
    const strict = await runCli(['verify', '--strict', '--project', project]);
    expect(strict.code).toBe(1);
    expect(strict.stdout).toBe(lenient.stdout);
  });

  it('verifies one run and prints the report as JSON', async () => {
    const project = await twoRunProject();
    await rm(join(project, 'workspace/src/b.ts'));
    await symlink('/etc/hostname', join(project, 'workspace/src/b.ts'));
    const result = await runCli(['verify', 'run-001', '--json', '--strict', '--project', project]);
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout) as {
      scope: unknown;
      problems: { code: string; path: string }[];
    };
    expect(report.scope).toEqual({ runId: 'run-001' });
    expect(report.problems.map((problem) => [problem.code, problem.path])).toEqual([
      ['workspace_not_a_file', 'workspace/src/b.ts'],
    ]);
  });

  it('reports a record missing from the index until reindex rebuilds it', async () => {
    const project = await twoRunProject();
    const path = 'workspace/src/c.ts';
    const contentHash = contentHashOf(text('c\n'));
    await appendArtifactRecords(project, parseRunId('run-002'), [
      {
        artifactId: artifactIdOf({
          runId: parseRunId('run-002'),
          taskId: parseNodeId('fix'),
          path,
          contentHash,
        }),
        runId: parseRunId('run-002'),
        taskId: parseNodeId('fix'),
        agentId: 'fixer-02',
        type: 'file',
        path,
        contentHash,
        createdAt: '2026-03-01T11:00:00.000Z',
        metadata: { bytes: 2, linesAdded: 1, linesRemoved: 0, source: 'ingest' },
      },
    ]);
    const before = await runCli(['verify', '--strict', '--json', '--project', project]);
    expect(before.code).toBe(1);
    expect(
      (JSON.parse(before.stdout) as { problems: { code: string }[] }).problems.map((p) => p.code),
    ).toContain('index_missing_record');
    expect((await runCli(['log', 'src/c.ts', '--project', project])).code).toBe(1);

    const reindex = await runCli(['reindex', '--project', project]);
    expect(reindex.code).toBe(0);
    expect(reindex.stdout).toBe('reindexed 2 run(s): 5 version record(s) of 4 path(s)\n');
    const after = await runCli(['verify', '--json', '--project', project]);
    expect(
      (JSON.parse(after.stdout) as { problems: { code: string }[] }).problems.map((p) => p.code),
    ).toEqual([
      // c.ts was recorded but never written to the workspace; its object was never stored.
      'missing_object',
      'workspace_missing',
    ]);
    expect((await runCli(['log', 'src/c.ts', '--project', project])).code).toBe(0);
  });

  it('exits 0 on index warnings alone (reindex repairs them) and 1 with --strict', async () => {
    const project = await twoRunProject();
    await rm(join(project, '.agent/index'), { recursive: true, force: true });
    const lenient = await runCli(['verify', '--json', '--project', project]);
    const codes = (JSON.parse(lenient.stdout) as { problems: { code: string }[] }).problems.map(
      (p) => p.code,
    );
    expect(codes.length).toBeGreaterThan(0);
    // The path index and the history journal are both gone (index_stale: the journal cannot answer).
    expect(new Set(codes)).toEqual(new Set(['index_missing_record', 'index_stale']));
    expect(lenient.code).toBe(0);
    expect((await runCli(['verify', '--strict', '--project', project])).code).toBe(1);
  });

  it('exits 2 for an unknown run', async () => {
    const project = await twoRunProject();
    const result = await runCli(['verify', 'run-404', '--project', project]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /^artifact-ingest: no run "run-404" in \.agent\/runs\/; list the runs with 'artifact-ingest runs'/,
    );
  });

  it.each([
    [['verify', 'run-001', 'run-002'], /verify takes at most one RUN_ID/],
    [['verify', '--strict=yes'], /--strict/],
    [['verify', '--project'], /--project/],
  ])('exits 2 on %j', async (args, message) => {
    const project = await twoRunProject();
    const result = await runCli(args, { cwd: project });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
  });

  it('prints its help with the problem codes', async () => {
    const result = await runCli(['help', 'verify']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Usage: artifact-ingest verify \[RUN_ID\] \[--strict\]/);
    expect(result.stdout).toMatch(/workspace_not_a_file/);
  });
});

describe('artifact-ingest reindex', () => {
  it('prints what it rebuilt as JSON, listing unreadable lines', async () => {
    const project = await twoRunProject();
    await writeFile(join(project, '.agent/runs/run-002/artifacts.jsonl'), '{"trunc', { flag: 'a' });
    const result = await runCli(['reindex', '--json', '--project', project]);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      runs: 2,
      records: 4,
      paths: 3,
      historySegments: 1,
      problems: [
        expect.objectContaining({ file: '.agent/runs/run-002/artifacts.jsonl', code: 'truncated_line' }),
      ],
    });
    const human = await runCli(['reindex', '--project', project]);
    expect(human.stdout).toMatch(
      /1 unreadable line\(s\) left out:\n {2}truncated_line: line 2 of \.agent\/runs\/run-002\/artifacts\.jsonl/,
    );
  });

  it('exits 2 on an argument, and prints its help', async () => {
    expect((await runCli(['reindex', 'run-001'])).code).toBe(2);
    const help = await runCli(['reindex', '-h']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: artifact-ingest reindex/);
  });
});

it('log, verify and reindex leave .agent/runs byte-identical', async () => {
  const project = await twoRunProject();
  await writeFile(join(project, 'workspace/src/b.ts'), 'drift\n');
  const before = await treeDigest(join(project, '.agent/runs'));
  for (const args of [['log', 'src/a.ts'], ['verify', '--strict'], ['verify', 'run-001'], ['reindex']]) {
    await runCli([...args, '--project', project]);
  }
  expect(await treeDigest(join(project, '.agent/runs'))).toEqual(before);
});
