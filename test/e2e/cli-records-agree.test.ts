import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFile, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, runCli, spawnCli } from '../helpers/run-cli.js';
import { fileBlock, readEvents, tempProject } from '../helpers/temp-project.js';
import { TEMP_FILE_PATTERN } from '../../src/workspace/index.js';

// Issue 11, "records that agree with the disk": real child processes, real SIGKILL, real temp dirs. The writers
// under test are child processes; the read-backs (verify) and the set-up or completing steps after a kill run the
// same CLI code in this process, which saves a process start each.

interface VerifyJson {
  readonly problems: readonly {
    readonly code: string;
    readonly path?: string;
    readonly runId?: string;
    readonly nodeId?: string;
    readonly docPath?: string;
    readonly plannedPaths?: readonly string[];
    readonly message: string;
  }[];
  readonly errors: number;
  readonly workspaceFiles: { readonly checked: number; readonly ok: number };
}

/** `artifact-ingest verify --json` run in this process: the read-back, not the step under test. */
async function verify(projectDir: string): Promise<VerifyJson> {
  const result = await runCli(['verify', '--project', projectDir, '--json']);
  return JSON.parse(result.stdout) as VerifyJson;
}

const SHARED_PATHS = Array.from({ length: 10 }, (_, index) => `shared/f${String(index)}.txt`);

/** A document writing every shared path with content that names its writer. */
const sharedDocument = (writer: string): string =>
  SHARED_PATHS.map((file) => fileBlock('txt', file, `${file} by ${writer}\n${'x'.repeat(2_000)}`)).join('\n');

/** Spawns the CLI binary and hands back the running child and the signal it will end by. */
function spawnChild(args: readonly string[]) {
  const child = spawn(process.execPath, [CLI, ...args], { stdio: 'ignore' });
  const exited = new Promise<NodeJS.Signals | null>((resolve) => {
    child.on('exit', (_code, signal) => {
      resolve(signal);
    });
  });
  return { child, exited };
}

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

const eventsText = (projectDir: string, runId: string): Promise<string> =>
  readFile(path.join(projectDir, '.agent/runs', runId, 'events.jsonl'), 'utf8').catch(() => '');

const filesIn = (directory: string): Promise<string[]> => readdir(directory).catch(() => []);

describe('records that agree with the disk', () => {
  it('8 concurrent ingest processes sharing 10 paths leave the last writer’s record on every path', async () => {
    const files: Record<string, string> = {};
    for (let writer = 0; writer < 8; writer += 1)
      files[`docs/w${String(writer)}.md`] = sharedDocument(`w${String(writer)}`);
    const projectDir = await tempProject(files);

    const results = await Promise.all(
      Array.from({ length: 8 }, (_, writer) =>
        spawnCli([
          'ingest',
          `docs/w${String(writer)}.md`,
          '--project',
          projectDir,
          '--run-id',
          `c${String(writer)}`,
        ]),
      ),
    );
    expect(results.map((result) => result.code)).toEqual(Array.from({ length: 8 }, () => 0));

    const report = await verify(projectDir);
    expect(report.problems.filter((problem) => problem.code === 'workspace_modified')).toEqual([]);
    expect(report.problems).toEqual([]);
    expect(report.workspaceFiles).toEqual({ checked: 10, ok: 10 });
  });

  it('parallel nodes of one run writing the same paths leave the last writer’s record on every path', async () => {
    const nodes = Array.from({ length: 12 }, (_, index) => `n${String(index)}`);
    const files: Record<string, string> = {
      'graphs/fan.yaml': [
        'name: fan',
        'version: "1"',
        'description: six nodes at once, one set of files',
        'nodes:',
        ...nodes.map(
          (id) =>
            `  - { id: ${id}, type: agent_task, agent: fast, prompt: "write", output_path: "docs/${id}.md" }`,
        ),
        '',
      ].join('\n'),
      'artifact-ingest.config.yaml':
        'ingest: { enabled: true }\nagents:\n  fast: { kind: replay, dir: replies }\n',
    };
    for (const id of nodes) files[`replies/${id}.md`] = sharedDocument(id);
    const projectDir = await tempProject(files);

    // The nodes run concurrently inside one process: the CLI's run, in this one.
    const run = await runCli([
      'run',
      path.join(projectDir, 'graphs/fan.yaml'),
      '--project',
      projectDir,
      '--run-id',
      'fan1',
      '--concurrency',
      '12',
    ]);
    expect(run.code).toBe(0);

    const report = await verify(projectDir);
    expect(report.problems).toEqual([]);
    expect(report.workspaceFiles).toEqual({ checked: 10, ok: 10 });
    const started = (await readEvents(projectDir, 'fan1')).filter(
      (event) => event.event === 'ingest.started',
    );
    expect(started).toHaveLength(12);
  });

  it('names an ingest SIGKILLed between its first rename and its manifest; a re-run completes it', async () => {
    const blocks = Array.from({ length: 200 }, (_, index) =>
      fileBlock('txt', `big/f${String(index)}.txt`, `${String(index)}\n${'y'.repeat(1_000)}`),
    );
    const projectDir = await tempProject({ 'docs/big.md': blocks.join('\n') });
    const args = ['ingest', 'docs/big.md', '--project', projectDir, '--run-id', 'k1', '--node-id', 'big'];

    const { child, exited } = spawnChild(args);
    try {
      // The window: ingest.started is on disk and at least one file has been renamed into place.
      await until('the first rename', async () => {
        const names = await filesIn(path.join(projectDir, 'workspace/big'));
        return (
          names.some((name) => name.endsWith('.txt')) &&
          (await eventsText(projectDir, 'k1')).includes('"ingest.started"')
        );
      });
      child.kill('SIGKILL');
      expect(await exited).toBe('SIGKILL');
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
    const placed = (await filesIn(path.join(projectDir, 'workspace/big'))).filter((name) =>
      name.endsWith('.txt'),
    );
    // Killed inside the window: some files placed, no manifest, no summary.
    expect(placed.length).toBeGreaterThan(0);
    expect(placed.length).toBeLessThan(200);
    expect(await filesIn(path.join(projectDir, '.agent/runs/k1/manifests'))).toEqual([]);

    const interrupted = await verify(projectDir);
    const [problem] = interrupted.problems.filter((found) => found.code === 'interrupted_ingest');
    expect(problem).toMatchObject({ runId: 'k1', nodeId: 'big', docPath: 'docs/big.md' });
    expect(problem?.plannedPaths).toHaveLength(50);
    expect(problem?.plannedPaths?.[0]).toBe('workspace/big/f0.txt');
    expect(problem?.message).toContain('and 150 more');
    expect(interrupted.errors).toBeGreaterThanOrEqual(1);

    const rerun = await runCli([...args, '--json']);
    expect(rerun.code).toBe(0);
    const manifest = JSON.parse(rerun.stdout) as {
      artifacts: { workspace_path: string; status: string; reason: string }[];
      summary: { written: number; skipped: number };
    };
    // A resumed manifest says what this attempt did: the files the killed one placed are `unchanged`.
    const placedPaths = new Set(placed.map((name) => `workspace/big/${name}`));
    for (const artifact of manifest.artifacts) {
      if (placedPaths.has(artifact.workspace_path)) {
        expect(artifact).toMatchObject({
          status: 'skipped',
          reason: expect.stringMatching(/^unchanged: /) as string,
        });
      } else expect(artifact.status).toBe('written');
    }
    expect(manifest.summary).toMatchObject({ written: 200 - placed.length, skipped: placed.length });
    // ...and the records still hold every file, so verify compares all 200 with the disk.
    const report = await verify(projectDir);
    expect(report.problems).toEqual([]);
    expect(report.workspaceFiles).toEqual({ checked: 200, ok: 200 });
    const records = (await readFile(path.join(projectDir, '.agent/runs/k1/artifacts.jsonl'), 'utf8'))
      .split('\n')
      .filter((line) => line !== '');
    expect(records).toHaveLength(200);
  });

  it('names a run node SIGKILLed mid-ingest, and run --resume re-ingests it', async () => {
    const blocks = Array.from({ length: 200 }, (_, index) =>
      fileBlock('txt', `big/f${String(index)}.txt`, `${String(index)}\n${'z'.repeat(1_000)}`),
    );
    const projectDir = await tempProject({
      'graphs/one.yaml': [
        'name: one',
        'version: "1"',
        'description: one node with many files',
        'nodes:',
        '  - { id: big, type: agent_task, agent: fast, prompt: "write", output_path: "docs/big.md" }',
        '',
      ].join('\n'),
      'artifact-ingest.config.yaml':
        'ingest: { enabled: true }\nagents:\n  fast: { kind: replay, dir: replies }\n',
      'replies/big.md': blocks.join('\n'),
    });
    const { child, exited } = spawnChild([
      'run',
      path.join(projectDir, 'graphs/one.yaml'),
      '--project',
      projectDir,
      '--run-id',
      'r1',
    ]);
    try {
      await until('the first rename', async () => {
        const names = await filesIn(path.join(projectDir, 'workspace/big'));
        return (
          names.some((name) => name.endsWith('.txt')) &&
          (await eventsText(projectDir, 'r1')).includes('"ingest.started"')
        );
      });
      child.kill('SIGKILL');
      expect(await exited).toBe('SIGKILL');
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
    const interrupted = await verify(projectDir);
    expect(interrupted.problems.filter((problem) => problem.code === 'interrupted_ingest')).toMatchObject([
      { runId: 'r1', nodeId: 'big', docPath: 'docs/big.md' },
    ]);

    const resumed = await runCli(['run', '--resume', 'r1', '--project', projectDir]);
    expect(resumed.code).toBe(0);
    const report = await verify(projectDir);
    expect(report.problems).toEqual([]);
    expect(report.workspaceFiles).toEqual({ checked: 200, ok: 200 });
    const summaries = (await readEvents(projectDir, 'r1')).filter(
      (event) => event.event === 'ingest.summary',
    );
    expect(summaries).toHaveLength(1);
  });

  it('a planted temp file of a killed writer is reported by verify and removed by the next ingest into its folder', async () => {
    const projectDir = await tempProject({ 'docs/a.md': fileBlock('txt', 'src/a.txt', 'a') });
    const first = await runCli(['ingest', 'docs/a.md', '--project', projectDir, '--run-id', 't1']);
    expect(first.code).toBe(0);
    const temp = path.join(projectDir, 'workspace/src/.artifact-ingest-0123456789abcdef.tmp');
    await writeFile(temp, 'half a write');
    expect((await verify(projectDir)).problems).toMatchObject([
      { code: 'stale_temp_file', path: 'workspace/src/.artifact-ingest-0123456789abcdef.tmp' },
    ]);

    await writeFile(path.join(projectDir, 'docs/a.md'), fileBlock('txt', 'src/a.txt', 'a2'));
    expect((await runCli(['ingest', 'docs/a.md', '--project', projectDir, '--run-id', 't2'])).code).toBe(0);
    expect(await filesIn(path.join(projectDir, 'workspace/src'))).toEqual(['a.txt']);
    expect((await verify(projectDir)).problems).toEqual([]);
  });

  it('a temp object a SIGKILLed ingest left in .agent/objects is reported by verify and removed by the next process that stores an object', async () => {
    const projectDir = await tempProject({ 'docs/.keep': '' });
    const objects = path.join(projectDir, '.agent/objects');
    let left: string[] = [];
    // Killed the moment a temp object shows: each try that lands after its rename is tried again.
    for (let attempt = 0; attempt < 10 && left.length === 0; attempt += 1) {
      const blocks = Array.from({ length: 40 }, (_, index) =>
        fileBlock(
          'txt',
          `big/f${String(index)}.txt`,
          `${String(attempt)}-${String(index)}\n${'z'.repeat(200_000)}`,
        ),
      );
      await writeFile(path.join(projectDir, 'docs/big.md'), blocks.join('\n'));
      const { child, exited } = spawnChild([
        'ingest',
        'docs/big.md',
        '--project',
        projectDir,
        '--run-id',
        `k${String(attempt)}`,
      ]);
      try {
        await until('a temp object', async () => {
          if (child.exitCode !== null) return true;
          return (await tempObjects(objects)).length > 0;
        });
        child.kill('SIGKILL');
        await exited;
      } finally {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      }
      left = await tempObjects(objects);
    }
    expect(left.length).toBeGreaterThan(0);
    const leftFolders = new Set(left.map((file) => path.dirname(file)));
    const report = await verify(projectDir);
    expect(
      report.problems.filter((problem) => problem.code === 'stale_temp_file').map((p) => p.path),
    ).toEqual(left.map((file) => `.agent/objects/${file}`).sort());

    // One small object, in a folder other than the temp files': the writer's own sweep never looks there.
    let content = 'small';
    for (let salt = 0; leftFolders.has(objectFolderOf(content)); salt += 1) content = `small ${String(salt)}`;
    await writeFile(path.join(projectDir, 'docs/small.md'), fileBlock('txt', 'small.txt', content));
    const next = await spawnCli(['ingest', 'docs/small.md', '--project', projectDir, '--run-id', 'after']);
    expect(next.code, next.stderr).toBe(0);
    expect(await tempObjects(objects)).toEqual([]);
    expect(
      (await verify(projectDir)).problems.filter((problem) => problem.code === 'stale_temp_file'),
    ).toEqual([]);
  });
});

/** The writer's temp files below the object store, relative to it; none while it does not exist. */
async function tempObjects(objects: string): Promise<string[]> {
  const names = await readdir(objects, { recursive: true }).catch(() => []);
  return names.filter((name) => TEMP_FILE_PATTERN.test(path.basename(name))).sort();
}

/** The folder of the object holding the file a block of `content` writes (the block adds a newline). */
function objectFolderOf(content: string): string {
  return `sha256/${createHash('sha256').update(`${content}\n`).digest('hex').slice(0, 2)}`;
}
