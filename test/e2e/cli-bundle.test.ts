import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { gzipTar, readTarEntries } from '../helpers/raw-tar.js';
import { folderFiles, recordRun } from '../helpers/recorded-run.js';
import { runCli } from '../helpers/run-cli.js';
import { tempProject } from '../helpers/temp-project.js';
import { treeDigest } from '../helpers/tree-digest.js';

const RUN = 'run-cli-1';

async function recordedProject(): Promise<string> {
  const project = await tempProject();
  await recordRun(project, RUN);
  return project;
}

describe('artifact-ingest bundle and import', () => {
  it('moves a run between projects: bundle --json, import --json, then import again', async () => {
    const source = await recordedProject();
    const out = await tempProject();
    const bundled = await runCli(['bundle', RUN, '-o', 'run.tar.gz', '--project', source, '--json'], {
      cwd: out,
    });
    expect(bundled.stderr).toBe('');
    expect(bundled.code).toBe(0);
    const file = path.join(out, 'run.tar.gz');
    expect(JSON.parse(bundled.stdout)).toEqual({
      file: expect.stringMatching(/run\.tar\.gz$/) as unknown,
      runId: RUN,
      files: 5,
      objects: 8,
      bytes: (await readFile(file)).length,
    });

    const target = await tempProject();
    const imported = await runCli(['import', file, '--json'], { cwd: target });
    expect(imported.code).toBe(0);
    expect(JSON.parse(imported.stdout)).toEqual({
      runId: RUN,
      files: 5,
      objects: 8,
      objectsStored: 8,
      alreadyImported: false,
    });
    const runDir = path.join('.agent', 'runs', RUN);
    expect(await folderFiles(path.join(target, runDir))).toEqual(
      await folderFiles(path.join(source, runDir)),
    );

    const again = await runCli(['import', file, '--project', target]);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/already imported/);
  });

  it('prints a human summary by default', async () => {
    const source = await recordedProject();
    const file = path.join(await tempProject(), 'run.tar.gz');
    const bundled = await runCli(['bundle', RUN, '--output', file], { cwd: source });
    expect(bundled.code).toBe(0);
    expect(bundled.stdout).toBe(
      `bundled run ${RUN}: 5 files, 8 objects, ${(await readFile(file)).length} bytes\n-> ${file}\n`,
    );
    const target = await tempProject();
    const imported = await runCli(['import', file], { cwd: target });
    expect(imported.stdout).toBe(`imported run ${RUN}: 5 files, 8 objects (8 new to this project)\n`);
  });

  it('refuses a hostile bundle with exit 1, naming the code, and writes nothing', async () => {
    const source = await recordedProject();
    const out = await tempProject();
    const file = path.join(out, 'run.tar.gz');
    expect((await runCli(['bundle', RUN, '-o', file, '--project', source])).code).toBe(0);
    const hostile = path.join(out, 'hostile.tar.gz');
    await writeFile(
      hostile,
      gzipTar([...(await readTarEntries(file)), { path: '.agent/runs/x/../../evil', body: 'x' }]),
    );
    const target = await tempProject({ 'workspace/keep.ts': 'export {};\n' });
    const before = await treeDigest(target);
    const refused = await runCli(['import', hostile, '--project', target]);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toMatch(
      /^artifact-ingest: import refused: unsafe_path: entry ".agent\/runs\/x\/..\/..\/evil" has a '..' segment/,
    );
    expect(await treeDigest(target)).toBe(before);
  });

  it('refuses to bundle an unknown run or overwrite a file without --force, with exit 2', async () => {
    const source = await recordedProject();
    const out = await tempProject({ 'taken.tar.gz': 'keep' });
    const unknown = await runCli(['bundle', 'run-nope', '-o', 'x.tar.gz', '--project', source], { cwd: out });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^artifact-ingest: no run "run-nope" in \.agent\/runs\//);
    const taken = await runCli(['bundle', RUN, '-o', 'taken.tar.gz', '--project', source], { cwd: out });
    expect(taken.code).toBe(2);
    expect(taken.stderr).toMatch(/^artifact-ingest: bundle refused: output_exists: .*--force/);
    expect(await readFile(path.join(out, 'taken.tar.gz'), 'utf8')).toBe('keep');
    expect((await readdir(out)).sort()).toEqual(['taken.tar.gz']);
    const forced = await runCli(['bundle', RUN, '-o', 'taken.tar.gz', '--force', '--project', source], {
      cwd: out,
    });
    expect(forced.code).toBe(0);
  });

  it.each([
    ['bundle', '--help'],
    ['import', '-h'],
  ])('prints help for %s %s with exit 0', async (command, flag) => {
    const result = await runCli([command, flag]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(new RegExp(`^Usage: artifact-ingest ${command} `));
    expect(result.stdout).toMatch(/Exit codes: 0 /);
  });

  it.each([
    ['bundle without RUN_ID', ['bundle', '-o', 'x.tar.gz'], /exactly one RUN_ID/],
    ['bundle without -o', ['bundle', RUN], /needs -o FILE\.tar\.gz/],
    ['bundle with two run ids', ['bundle', 'a', 'b', '-o', 'x.tar.gz'], /exactly one RUN_ID/],
    ['import without FILE', ['import'], /exactly one FILE\.tar\.gz/],
    ['import with an unknown option', ['import', 'x.tar.gz', '--force'], /--force/],
    [
      'import into a missing project',
      ['import', 'x.tar.gz', '--project', '/nonexistent/dir'],
      /is not a directory/,
    ],
  ])('exits 2 for a usage error: %s', async (_name, args, message) => {
    const result = await runCli(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).toMatch(/Run 'artifact-ingest (bundle|import) --help'/);
  });
});
