import { spawn, spawnSync } from 'node:child_process';
import { mkdir, readdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import type { Server } from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { gzipTar, readTarEntries } from '../helpers/raw-tar.js';
import { folderFiles, recordRun, shareBundledRun } from '../helpers/recorded-run.js';
import { CLI, runCli } from '../helpers/run-cli.js';
import { padBundle } from '../helpers/padded-bundle.js';
import { tempProject } from '../helpers/temp-project.js';
import { treeDigest } from '../helpers/tree-digest.js';

const RUN = 'run-cli-1';
const MIB = 1024 * 1024;

async function recordedProject(): Promise<string> {
  const project = await tempProject();
  await recordRun(project, RUN);
  return project;
}

// Tests of import and of refusals to bundle start from one recorded run and its bundle, which none of them changes.
const sharedBundle = shareBundledRun(RUN);

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
    const { file } = await sharedBundle();
    const hostile = path.join(await tempProject(), 'hostile.tar.gz');
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

  it.each([
    ['~17 KB', 16 * MIB],
    ['~66 KB', 64 * MIB],
    ['~2 MiB', 2048 * MIB],
  ])(
    'refuses at once, exit 1, a %s bundle padded with zeros after its tar end-of-archive marker',
    async (_size, zeros) => {
      const { file } = await sharedBundle();
      const padded = path.join(await tempProject(), 'padded.tar.gz');
      await padBundle(file, padded, zeros);
      console.log(
        `bundle padded with ${String(zeros / MIB)} MiB of zeros: ${String((await stat(padded)).size)} bytes`,
      );
      const target = await tempProject({ 'workspace/keep.ts': 'export {};\n' });
      const before = await treeDigest(target);
      // Before the fix the ~17 KB one took 16 s and the ~66 KB one 262 s: 60 s is a bound on hanging, not a speed test.
      const result = spawnSync(process.execPath, [CLI, 'import', padded, '--project', target], {
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect(result.signal).toBeNull();
      expect(result.status).toBe(1);
      expect(result.stderr).toMatch(
        /^artifact-ingest: import refused: not_a_bundle: .* holds more than 1048576 bytes of padding after the end-of-archive marker/,
      );
      expect(await treeDigest(target)).toBe(before);
    },
    120_000,
  );

  it.each([
    ['a FIFO', 'fifo'],
    ['a symlink to a FIFO', 'link-to-fifo'],
    ['a folder', 'folder'],
    ['a socket', 'socket'],
    ['/dev/zero', 'dev-zero'],
  ] as const)('refuses at once, exit 1, to import %s', async (_name, kind) => {
    const dir = await tempProject();
    const fifo = path.join(dir, 'pipe.tar.gz');
    let file = fifo;
    let server: Server | undefined;
    if (kind === 'fifo' || kind === 'link-to-fifo') {
      expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
      if (kind === 'link-to-fifo') {
        file = path.join(dir, 'link.tar.gz');
        await symlink(fifo, file);
      }
    } else if (kind === 'folder') {
      file = path.join(dir, 'folder.tar.gz');
      await mkdir(file);
    } else if (kind === 'socket') {
      file = path.join(dir, 'socket.tar.gz');
      const listening = createServer();
      server = listening;
      await new Promise<void>((resolve) => listening.listen(file, resolve));
    } else file = '/dev/zero';
    const target = await tempProject({ 'workspace/keep.ts': 'export {};\n' });
    const before = await treeDigest(target);
    try {
      // A FIFO with no writer holds a plain open forever: 60 s bounds the hang, it is not a speed test.
      const result = await runProgramWithin(60_000, [CLI, 'import', file, '--project', target]);
      expect(result.signal).toBeNull();
      expect(result.stderr).toMatch(
        new RegExp(
          `^artifact-ingest: import refused: not_a_bundle: ${file.replaceAll('.', '\\.')} is not a bundle: it is (a FIFO, socket or device|a folder), not a regular file`,
        ),
      );
      expect(result.code).toBe(1);
    } finally {
      server?.close();
    }
    expect(await treeDigest(target)).toBe(before);
  });

  it("bounds an import by --max-object-bytes, else by the project's max_document_bytes, and checks the values", async () => {
    const { file } = await sharedBundle();
    const target = await tempProject({ 'workspace/keep.ts': 'export {};\n' });
    const before = await treeDigest(target);
    const flagged = await runCli(['import', file, '--project', target, '--max-object-bytes', '8']);
    expect(flagged.code).toBe(1);
    expect(flagged.stderr).toMatch(
      /^artifact-ingest: import refused: too_large: entry "\.agent\/objects\/sha256\/[0-9a-f/]+" is \d+ bytes, over maxObjectBytes \(--max-object-bytes\) of 8;/,
    );
    expect(await treeDigest(target)).toBe(before);
    await writeFile(
      path.join(target, 'artifact-ingest.config.yaml'),
      'ingest:\n  limits:\n    max_document_bytes: 8\n',
    );
    const configured = await runCli(['import', file, '--project', target]);
    expect(configured.code).toBe(1);
    expect(configured.stderr).toContain('over maxObjectBytes (--max-object-bytes) of 8;');
    for (const bad of ['0', '1.5', 'lots']) {
      const usage = await runCli(['import', file, '--project', target, '--max-bytes', bad]);
      expect(usage.code).toBe(2);
      expect(usage.stderr).toContain(`--max-bytes '${bad}' must be a whole number of bytes of at least 1`);
    }
    const raised = await runCli(['import', file, '--project', target, '--max-object-bytes', '1048576']);
    expect(raised.code).toBe(0);
  });

  it('refuses to bundle an unknown run or overwrite a file without --force, with exit 2', async () => {
    const { source } = await sharedBundle();
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

/** Runs node with `args` in a child, killed after `ms`: its exit code, or the signal that stopped it. */
function runProgramWithin(
  ms: number,
  args: readonly string[],
): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), ms);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stderr });
    });
  });
}
