import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Checkout } from '../../src/artifacts/lineage/checkout-workspace.js';
import { replayRun } from '../../src/artifacts/lineage/replay-run.js';
import { TEXT, readTree, treeOf, twoRunProject } from '../helpers/lineage-project.js';
import { runCli } from '../helpers/run-cli.js';
import { fileBlock, tempProject } from '../helpers/temp-project.js';
import { treeDigest } from '../helpers/tree-digest.js';

describe('artifact-ingest replay', () => {
  it('prints one block per step with its artifacts, failed steps as "step -"', async () => {
    const { projectDir } = await twoRunProject();
    const { code, stdout, stderr } = await runCli(['replay', 'run-001', '--project', projectDir]);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toMatch(
      /^run run-001 {2}graph team [0-9a-f]{8} {2}started 2026-02-24T10:00:01\.000Z\nterminal: - \(the run has not ended\)\n/,
    );
    expect(stdout).toMatch(/^step 1 {2}plan {2}agent planner {2}completed {2}3\.0s {2}prompt [0-9a-f]{8}$/m);
    expect(stdout).toContain('\n  + docs/plan.md  +4 -0\n  + workspace/README.md  +1 -0\n');
    expect(stdout).toContain('  ingest  1 block: 1 written, 0 skipped, 0 rejected\n');
    expect(stdout).toMatch(/^step 2 {2}ui {2}agent designer {2}completed {2}4\.0s {2}prompt [0-9a-f]{8}$/m);
    expect(stdout).toMatch(
      /^step - {2}test {2}agent tester {2}failed .*\n {2}error agent_failed: test gave up$/m,
    );
    expect(stdout).toMatch(/^step 4 {2}test {2}agent tester {2}completed .* {2}attempt 2$/m);
    expect(stdout).toContain('  ~ workspace/test/api.test.ts  +3 -1\n');
  });

  it('replays a run made by ingest --run-id as its ingests, none of it unfinished', async () => {
    const projectDir = await tempProject({
      'docs/plan.md': fileBlock('ts', 'src/a.ts', 'export const a = 1;'),
    });
    expect((await runCli(['ingest', '--project', projectDir, '--run-id', 'r1', 'docs/plan.md'])).code).toBe(
      0,
    );
    const { code, stdout, stderr } = await runCli(['replay', 'r1', '--project', projectDir]);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toMatch(/^step 1 {2}plan {2}agent cli {2}completed {2}\S+ {2}ingest$/m);
    expect(stdout).toContain(
      '  ingest  1 block: 1 written, 0 skipped, 0 rejected\n  + workspace/src/a.ts  +1 -0\n',
    );
    expect(stdout).not.toContain('unfinished');
  });

  it('lists the versions of an interrupted execution last', async () => {
    const { projectDir } = await twoRunProject();
    const { code, stdout } = await runCli(['replay', 'run-002', '--project', projectDir]);
    expect(code).toBe(0);
    expect(stdout).toMatch(
      /\nunfinished \(interrupted: no trace followed these versions\)\n {2}~ workspace\/src\/ui\.ts {2}\+1 -1 {2}task ui2\n$/,
    );
  });

  it('prints the same replay as the library with --json, forward and backward', async () => {
    const { projectDir } = await twoRunProject();
    const forward = await runCli(['replay', 'run-002', '--project', projectDir, '--json']);
    expect(forward.code).toBe(0);
    // The library's replay, plus the run's terminal state (none: these recorded runs never declared one).
    expect(JSON.parse(forward.stdout)).toEqual({
      ...(await replayRun(projectDir, 'run-002')),
      terminal: null,
    });
    const backward = await runCli(['replay', 'run-002', '--backward', '--json', '--project', projectDir]);
    expect(JSON.parse(backward.stdout)).toEqual({
      ...(await replayRun(projectDir, 'run-002', { backward: true })),
      terminal: null,
    });
  });

  it('prints diffs newest first with --backward and ends with the versions before the run', async () => {
    const { projectDir } = await twoRunProject();
    const { code, stdout } = await runCli(['replay', 'run-002', '--backward', '--project', projectDir]);
    expect(code).toBe(0);
    expect(stdout.indexOf('task ui2')).toBeLessThan(stdout.indexOf('step 2  docs'));
    expect(stdout.indexOf('step 2  docs')).toBeLessThan(stdout.indexOf('step 1  fix'));
    expect(stdout).toContain('-  return 1;\n+  return 2;\n');
    expect(stdout).toContain(
      '  + workspace/assets/logo.png  +0 -0\n    binary content (0 -> 11 bytes); no text diff\n',
    );
    expect(stdout).toMatch(
      /\nbefore run run-002:\n {2}workspace\/README\.md {2}art-[0-9a-f]{12} {2}run run-001 {2}task plan /,
    );
  });

  it('says a first run had no earlier versions', async () => {
    const { projectDir } = await twoRunProject();
    const { stdout } = await runCli(['replay', 'run-001', '--backward', '--project', projectDir]);
    expect(stdout).toMatch(
      /\nbefore run run-001: no earlier versions \(the run created every path it touched\)\n$/,
    );
  });

  it('says which earlier versions are in no run when a run was imported without the one before it', async () => {
    const { projectDir } = await twoRunProject();
    const bundle = path.join(await tempProject(), 'run-002.tar.gz');
    expect((await runCli(['bundle', 'run-002', '-o', bundle, '--project', projectDir])).code).toBe(0);
    const fresh = await tempProject();
    expect((await runCli(['import', bundle, '--project', fresh])).code).toBe(0);
    const { code, stdout } = await runCli(['replay', 'run-002', '--backward', '--project', fresh]);
    expect(code).toBe(0);
    expect(stdout).toMatch(
      /\nbefore run run-002:\n {2}\d+ earlier version\(s\) are in no run of this project; import the runs that made them\n$/,
    );
    expect(stdout).not.toContain('the run created every path it touched');
  });

  it('filters to one path with --path, workspace-relative', async () => {
    const { projectDir } = await twoRunProject();
    const { code, stdout } = await runCli(['replay', 'run-002', '--backward', '--path', 'src/api.ts'], {
      cwd: projectDir,
    });
    expect(code).toBe(0);
    expect(stdout).toContain('path workspace/src/api.ts');
    expect(stdout).not.toContain('README');
    expect(stdout).toContain(`-${TEXT.api1.split('\n')[1] ?? ''}\n+${TEXT.api2.split('\n')[1] ?? ''}\n`);
  });

  it.each([
    [['replay', 'run-404'], 'no run "run-404" in .agent/runs/; ', "'artifact-ingest runs'"],
    [['replay', 'run-001', '--path', 'src/nope.ts'], 'unknown_path: ', 'recorded no version'],
  ])('exits 2 for %j with "artifact-ingest: %s..."', async (args, start, hint) => {
    const { projectDir } = await twoRunProject();
    const result = await runCli([...args, '--project', projectDir]);
    expect(result.code).toBe(2);
    expect(result.stderr.startsWith(`artifact-ingest: ${start}`)).toBe(true);
    expect(result.stderr).toContain(hint);
    expect(result.stdout).toBe('');
  });

  it.each([
    [['replay'], 'exactly one RUN_ID'],
    [['replay', 'a', 'b'], 'exactly one RUN_ID'],
    [['replay', 'run-001', '--bogus'], "unknown option '--bogus'"],
    [['replay', 'run-001', '--path'], "Option '--path <value>' argument missing"],
  ])('exits 2 for the usage mistake %j', async (args, message) => {
    const { projectDir } = await twoRunProject();
    const result = await runCli(args, { cwd: projectDir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
    expect(result.stderr).toContain("Run 'artifact-ingest replay --help' for usage.");
  });

  it('prints its help', async () => {
    const result = await runCli(['replay', '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Usage: artifact-ingest replay RUN_ID \[--backward\] \[--path P\]/);
    expect((await runCli(['help', 'replay'])).stdout).toBe(result.stdout);
  });
});

describe('artifact-ingest checkout', () => {
  it('rebuilds a step of a run into --to and lists the files', async () => {
    const { projectDir } = await twoRunProject();
    const to = path.join(await tempProject(), 'step-3');
    const { code, stdout, stderr } = await runCli([
      'checkout',
      '--step',
      '3',
      '--run',
      'run-001',
      '--to',
      to,
      '--project',
      projectDir,
    ]);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toMatch(new RegExp(`^checked out 4 files into ${to}: run run-001 after step 3 \\(2026-`));
    expect(stdout).toMatch(/^path {2,}run {2,}task {2,}bytes {2}artifact$/m);
    expect(stdout).toMatch(/^src\/api\.ts {2,}run-001 {2}api {2,}\d+ {2}art-[0-9a-f]{12}$/m);
    expect(await readTree(to)).toEqual(
      treeOf({
        'README.md': TEXT.readme1,
        'src/ui.ts': TEXT.ui,
        'src/api.ts': TEXT.api1,
        'src/shared.ts': TEXT.shared,
      }),
    );
  });

  it('resolves a relative --to against the current directory and prints JSON with --json', async () => {
    const { projectDir, times } = await twoRunProject();
    const parent = await tempProject();
    const { code, stdout } = await runCli(
      ['checkout', '--at', times.betweenRuns, '--to', 'between', '--project', projectDir, '--json'],
      { cwd: parent },
    );
    expect(code).toBe(0);
    const checkout = JSON.parse(stdout) as Checkout;
    expect(checkout.to).toBe(path.join(parent, 'between'));
    expect(checkout.cut).toEqual({ kind: 'at', time: times.betweenRuns });
    expect(checkout.files.map((file) => file.path)).toEqual([
      'README.md',
      'src/api.ts',
      'src/shared.ts',
      'src/ui.ts',
      'test/api.test.ts',
    ]);
    expect(checkout.problems).toEqual([]);
  });

  it('describes step 0 as before the run', async () => {
    const { projectDir } = await twoRunProject();
    const to = path.join(await tempProject(), 'before');
    const { code, stdout } = await runCli(['checkout', '--step', '0', '--to', to], { cwd: projectDir });
    expect(code).toBe(0);
    expect(stdout).toMatch(/^checked out 5 files into .*: before run run-002 \(started 2026-/);
  });

  it.each([
    ['a non-empty --to', 'target_not_empty', ['--step', '1']],
    ['an invalid --at', 'invalid_time', ['--at', 'noon']],
    ['a step out of range', 'step_out_of_range', ['--step', '9', '--run', 'run-001']],
    [
      'an unknown run',
      'no run "run-404" in .agent/runs/; list the runs',
      ['--step', '1', '--run', 'run-404'],
    ],
  ])('exits 2 for %s and writes nothing', async (_name, code, args) => {
    const { projectDir } = await twoRunProject();
    const to = path.join(await tempProject(), 'out');
    await mkdir(to);
    if (code === 'target_not_empty') await writeFile(path.join(to, 'keep.txt'), 'keep');
    const before = await readTree(to);
    const result = await runCli(['checkout', ...args, '--to', to, '--project', projectDir]);
    expect(result.code).toBe(2);
    expect(result.stderr.startsWith(`artifact-ingest: ${code}`)).toBe(true);
    expect(await readTree(to)).toEqual(before);
  });

  it('exits 2 for a --to inside the workspace', async () => {
    const { projectDir } = await twoRunProject();
    const result = await runCli(['checkout', '--step', '1', '--to', 'workspace/old'], { cwd: projectDir });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^artifact-ingest: target_inside_project: /);
  });

  it.each([
    [['checkout', '--to', 'x'], 'exactly one of --step N and --at TIME'],
    [
      ['checkout', '--step', '1', '--at', '2030-01-01T00:00:00Z', '--to', 'x'],
      'exactly one of --step N and --at TIME',
    ],
    [['checkout', '--step', '1'], '--to DIR is required'],
    [['checkout', '--step', 'two', '--to', 'x'], '--step takes a whole number'],
    [['checkout', '--step=-1', '--to', 'x'], '--step takes a whole number'],
    [['checkout', 'run-001', '--step', '1', '--to', 'x'], 'checkout takes no arguments'],
  ])('exits 2 for the usage mistake %j', async (args, message) => {
    const { projectDir } = await twoRunProject();
    const result = await runCli(args, { cwd: projectDir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
    expect(result.stderr).toContain("Run 'artifact-ingest checkout --help' for usage.");
  });

  it('prints its help', async () => {
    const result = await runCli(['checkout', '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /^Usage: artifact-ingest checkout \(--step N \| --at TIME\) \[--run RUN_ID\] --to DIR/,
    );
  });
});

describe('replay and checkout through the CLI are read-only', () => {
  it('leave .agent/ and the workspace byte-identical', async () => {
    const { projectDir, times } = await twoRunProject();
    const agent = await treeDigest(path.join(projectDir, '.agent'));
    const workspace = await treeDigest(path.join(projectDir, 'workspace'));
    const outside = await tempProject();
    const runs = [
      ['replay', 'run-001'],
      ['replay', 'run-002', '--backward'],
      ['replay', 'run-002', '--backward', '--path', 'README.md', '--json'],
      ['checkout', '--step', '2', '--to', path.join(outside, 'a')],
      ['checkout', '--at', times.betweenRuns, '--to', path.join(outside, 'b'), '--json'],
      ['checkout', '--step', '1', '--to', 'workspace'],
    ];
    for (const args of runs) await runCli([...args, '--project', projectDir], { cwd: projectDir });
    expect(await treeDigest(path.join(projectDir, '.agent'))).toBe(agent);
    expect(await treeDigest(path.join(projectDir, 'workspace'))).toBe(workspace);
  });
});
