import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { lstat, mkdir, readdir, readFile, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, runProgram, spawnCli } from '../helpers/run-cli.js';
import type { CliResult } from '../helpers/run-cli.js';
import { fileBlock, readEvents, tempProject } from '../helpers/temp-project.js';

/** A host runtime in another language: writes each document through a temp file and os.replace (seed 001). */
const PYTHON_WRITER = String.raw`
import json, os, sys, tempfile, time

project, script = sys.argv[1], json.loads(sys.argv[2])

def atomic_write(name, text, half_pause=0.0, stamp=None):
    target = os.path.join(project, 'docs', name)
    os.makedirs(os.path.dirname(target), exist_ok=True)
    # Python's own temp names (tmpXXXXXXXX) beside the target; a half-written one is a hidden .md (.half-XXXX.md).
    fd, temp = tempfile.mkstemp(dir=os.path.dirname(target), **({'prefix': '.half-', 'suffix': '.md'} if half_pause > 0 else {}))
    with os.fdopen(fd, 'w', encoding='utf-8', newline='') as handle:
        if half_pause > 0:
            handle.write(text[: len(text) // 2])
            handle.flush()
            time.sleep(half_pause)
            handle.write(text[len(text) // 2 :])
        else:
            handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())
    if stamp is not None:
        # A runtime that stamps its documents with a time of its own: no file time shows the rename.
        os.utime(temp, (stamp, stamp))
    os.replace(temp, target)

def slow_write(name, text, pause):
    target = os.path.join(project, 'docs', name)
    with open(target, 'w', encoding='utf-8', newline='') as handle:
        handle.write(text[: len(text) // 2])
        handle.flush()
        time.sleep(pause)
        handle.write(text[len(text) // 2 :])

for step in script:
    if step[0] == 'write':
        atomic_write(step[1], step[2], step[3] if len(step) > 3 else 0.0)
    elif step[0] == 'slow':
        slow_write(step[1], step[2], step[3])
    elif step[0] == 'dated':
        atomic_write(step[1], step[2], stamp=time.time() + 3600)
    elif step[0] == 'mkdir':
        os.makedirs(os.path.join(project, 'docs', step[1]), exist_ok=True)
    elif step[0] == 'sleep':
        time.sleep(step[1])
`;

type WriterStep =
  | readonly ['write', string, string]
  | readonly ['write', string, string, number]
  | readonly ['slow', string, string, number]
  | readonly ['dated', string, string]
  | readonly ['mkdir', string]
  | readonly ['sleep', number];

/** Runs the Python writer over the project's docs/ and fails the test if it fails. */
async function runPythonWriter(projectDir: string, steps: readonly WriterStep[]): Promise<void> {
  const script = path.join(projectDir, '..', `${path.basename(projectDir)}-writer.py`);
  await writeFile(script, PYTHON_WRITER);
  const result = await runProgram('python3', [script, projectDir, JSON.stringify(steps)]);
  expect(result, result.stderr).toMatchObject({ code: 0 });
}

/** A running `watch` child: its stdout lines as they come, and a stop by signal that collects the rest. */
function startWatch(args: readonly string[], cwd: string) {
  const child = spawn(process.execPath, [CLI, 'watch', ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<CliResult>((resolve) =>
    child.on('close', (code) => {
      resolve({ code, stdout, stderr });
    }),
  );
  const waitFor = async (ready: () => boolean, what: string, timeoutMs = 20_000): Promise<void> => {
    const deadline = Date.now() + timeoutMs;
    while (!ready()) {
      if (Date.now() > deadline || child.exitCode !== null) {
        throw new Error(`watch did not ${what}; stdout:\n${stdout}\nstderr:\n${stderr}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  };
  return {
    lines: (): string[] => stdout.split('\n').filter((line) => line !== ''),
    started: () => waitFor(() => stderr.includes('Ctrl-C to stop'), 'start'),
    waitForLines: (count: number) =>
      waitFor(
        () => stdout.split('\n').filter((line) => line !== '').length >= count,
        `print ${String(count)} lines`,
      ),
    stop: (signal: NodeJS.Signals): Promise<CliResult> => {
      child.kill(signal);
      return exited;
    },
  };
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

interface WatchLine {
  doc_path: string;
  node_id: string;
  run_id: string;
  sha256: string;
  summary: { total_blocks: number; written: number; skipped: number; rejected: number };
  manifest_path: string | null;
  error?: { code: string; message: string };
}

/** How many times each node was ingested into the run: its `ingest.started` events. */
async function ingestsPerNode(projectDir: string, runId: string): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const event of await readEvents(projectDir, runId)) {
    if (event.event === 'ingest.started') {
      const node = String(event.node_id);
      counts[node] = (counts[node] ?? 0) + 1;
    }
  }
  return counts;
}

const docA1 = `# a, first\n\n${fileBlock('ts', 'src/a.ts', 'export const a = 1;')}`;
const docA2 = `# a, second\n\n${fileBlock('ts', 'src/a.ts', 'export const a = 2;')}`;
const docB = `# b\n\n${fileBlock('py', 'tools/b.py', 'print("b")')}`;
const docC = `# c\n\n${fileBlock('ts', 'src/nested/c.ts', 'export const c = 3;')}`;
// Long enough that its first half, written and left for a second, is a document of its own if ever read.
const docHalf = `# half\n\n${fileBlock('ts', 'src/half.ts', `export const half = '${'h'.repeat(400)}';`)}`;
const docSlow = `# slow\n\n${fileBlock('ts', 'src/slow.ts', 'export const slow = true;')}`;

describe('artifact-ingest watch', () => {
  it('ingests each document a Python runtime writes through a temp file and os.replace exactly once per version', async () => {
    const projectDir = await tempProject({ 'docs/.keep': '' });
    const watcher = startWatch(['--run-id', 'host-1', '--json', '--quiet-ms', '700'], projectDir);
    await watcher.started();
    await runPythonWriter(projectDir, [
      ['write', 'a.md', docA1],
      ['write', 'b.md', docB],
      ['write', 'sub/c.md', docC],
      ['sleep', 1.6],
      ['write', 'a.md', docA2],
      // The same bytes renamed into place again: a new file, the same content version.
      ['write', 'b.md', docB],
      // A temp file left half-written for longer than the quiet period, then completed and renamed.
      ['write', 'half.md', docHalf, 1.2],
      // Written in place in two parts, closer together than the quiet period: one version.
      ['sleep', 0.6],
      ['slow', 'slow.md', docSlow, 0.3],
    ]);
    await watcher.waitForLines(6);
    // Two more quiet periods and a rescan: anything ingested twice would show by now.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const result = await watcher.stop('SIGINT');
    expect(result.code).toBe(0);

    const lines = result.stdout
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as WatchLine);
    expect(lines.map((line) => [line.doc_path, line.node_id, line.sha256]).sort()).toEqual(
      [
        ['docs/a.md', 'a', sha256(docA1)],
        ['docs/a.md', 'a', sha256(docA2)],
        ['docs/b.md', 'b', sha256(docB)],
        ['docs/half.md', 'half', sha256(docHalf)],
        ['docs/slow.md', 'slow', sha256(docSlow)],
        ['docs/sub/c.md', 'sub.c', sha256(docC)],
      ].sort(),
    );
    for (const line of lines) {
      expect(line).toMatchObject({
        run_id: 'host-1',
        summary: { total_blocks: 1, written: 1, rejected: 0 },
        manifest_path: `.agent/runs/host-1/manifests/${line.node_id}.json`,
      });
      expect(line.error).toBeUndefined();
    }
    expect(await ingestsPerNode(projectDir, 'host-1')).toEqual({ a: 2, b: 1, 'sub.c': 1, half: 1, slow: 1 });
    expect(await readFile(path.join(projectDir, 'workspace/src/a.ts'), 'utf8')).toBe('export const a = 2;\n');
    expect(await readFile(path.join(projectDir, 'workspace/src/half.ts'), 'utf8')).toBe(
      `export const half = '${'h'.repeat(400)}';\n`,
    );
    // The temp files were never documents: no manifest but the documents' own, no temp file left in docs/.
    expect((await readdir(path.join(projectDir, '.agent/runs/host-1/manifests'))).sort()).toEqual([
      'a.json',
      'b.json',
      'half.json',
      'slow.json',
      'sub.c.json',
    ]);
    expect((await readdir(path.join(projectDir, 'docs'))).sort()).toEqual([
      '.keep',
      'a.md',
      'b.md',
      'half.md',
      'slow.md',
      'sub',
    ]);
    expect(result.stderr).toContain(
      'watch stopped: 6 ingested (6 written, 0 skipped, 0 rejected), 1 unchanged, 0 failed; run host-1, state .agent/watch/host-1.json',
    );
    const state = JSON.parse(await readFile(path.join(projectDir, '.agent/watch/host-1.json'), 'utf8')) as {
      documents: Record<string, { sha256: string }>;
    };
    expect(state.documents['docs/a.md']?.sha256).toBe(sha256(docA2));

    // A restart ingests nothing unchanged and rewrites no manifest, then ingests exactly the one changed document.
    const manifest = path.join(projectDir, '.agent/runs/host-1/manifests/a.json');
    const before = await stat(manifest);
    const again = await spawnCli(['watch', '--run-id', 'host-1', '--once', '--json'], { cwd: projectDir });
    expect(again).toMatchObject({ code: 0, stdout: '' });
    expect(again.stderr).toContain(
      'watch --once done: 0 ingested (0 written, 0 skipped, 0 rejected), 5 unchanged',
    );
    expect((await stat(manifest)).mtimeMs).toBe(before.mtimeMs);
    await runPythonWriter(projectDir, [['write', 'b.md', `${docB}\nmore\n`]]);
    const changed = await spawnCli(['watch', '--run-id', 'host-1', '--once', '--json', '--quiet-ms', '0'], {
      cwd: projectDir,
    });
    expect(changed.code).toBe(0);
    expect(
      changed.stdout
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => (JSON.parse(line) as WatchLine).doc_path),
    ).toEqual(['docs/b.md']);
    expect(await ingestsPerNode(projectDir, 'host-1')).toEqual({ a: 2, b: 2, 'sub.c': 1, half: 1, slow: 1 });
    expect((await stat(manifest)).mtimeMs).toBe(before.mtimeMs);
  }, 60_000);

  it('settles a document on its rename into place alone, with no file time to tell and no quiet period to wait out', async () => {
    const projectDir = await tempProject({ 'docs/.keep': '' });
    // The longest quiet period: a document that waited for it would not be ingested before the test times out.
    const watcher = startWatch(['--run-id', 'renames', '--json', '--quiet-ms', '600000'], projectDir);
    await watcher.started();
    const names = Array.from({ length: 8 }, (_, n) =>
      n < 4 ? `r${String(n)}.md` : `later/r${String(n)}.md`,
    );
    const docOf = (n: number): string =>
      `# r${String(n)}\n\n${fileBlock('ts', `r${String(n)}.ts`, `export const r = ${String(n)};`)}`;
    await runPythonWriter(projectDir, [
      // Each temp file is written, dated an hour ahead and renamed at once: only its own events tell the rename.
      ...names.slice(0, 4).map((name, n) => ['dated', name, docOf(n)] as const),
      // A folder made while watching is watched from then on (given a second to see it, however busy the watch).
      ['mkdir', 'later'],
      ['sleep', 1],
      ...names.slice(4).map((name, n) => ['dated', name, docOf(n + 4)] as const),
    ]);
    await watcher.waitForLines(names.length);
    const result = await watcher.stop('SIGINT');
    expect(result.code).toBe(0);
    const ingested = result.stdout
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => (JSON.parse(line) as WatchLine).doc_path);
    expect(ingested.sort()).toEqual(names.map((name) => `docs/${name}`).sort());
    for (let n = 0; n < names.length; n++) {
      expect(await readFile(path.join(projectDir, `workspace/r${String(n)}.ts`), 'utf8')).toBe(
        `export const r = ${String(n)};\n`,
      );
    }
  }, 60_000);

  it('--once ingests what is pending and exits, one text line per document, passing over temp and non-.md files', async () => {
    const review = `${fileBlock('sh', '../../escape.sh', 'rm -rf /')}${docC}`;
    const projectDir = await tempProject({
      'docs/plan.md': docA1,
      'docs/team/review.md': review,
      'docs/.draft.md': docB,
      'docs/notes.txt': docB,
      'docs/plan.md.tmp': docB,
    });
    const result = await spawnCli(['watch', '--once', '--run-id', 'cron-1'], { cwd: projectDir });
    expect(result.code).toBe(0);
    expect(
      result.stdout
        .split('\n')
        .filter((line) => line !== '')
        .sort(),
    ).toEqual(
      [
        `ingested docs/plan.md as node plan (sha256 ${sha256(docA1).slice(0, 12)}): 1 block, 1 written, 0 skipped, 0 rejected`,
        `ingested docs/team/review.md as node team.review (sha256 ${sha256(review).slice(0, 12)}): 2 blocks, 1 written, 0 skipped, 1 rejected`,
        'watch --once done: 2 ingested (2 written, 0 skipped, 1 rejected), 0 unchanged, 0 failed; run cron-1, state .agent/watch/cron-1.json',
      ].sort(),
    );
    expect(await ingestsPerNode(projectDir, 'cron-1')).toEqual({ plan: 1, 'team.review': 1 });
    await expect(lstat(path.join(projectDir, 'workspace/tools/b.py'))).rejects.toThrow(/ENOENT/);
    await expect(lstat(path.join(projectDir, 'escape.sh'))).rejects.toThrow(/ENOENT/);
  });

  it('stops on SIGTERM with the summary on stdout, and never ingests a document that has not settled', async () => {
    const projectDir = await tempProject({ 'docs/old.md': docA1 });
    const anHourAgo = new Date(Date.now() - 3_600_000);
    await utimes(path.join(projectDir, 'docs/old.md'), anHourAgo, anHourAgo);
    const watcher = startWatch(['--run-id', 'term-1', '--quiet-ms', '60000'], projectDir);
    await watcher.started();
    await writeFile(path.join(projectDir, 'docs/fresh.md'), docB);
    await new Promise((resolve) => setTimeout(resolve, 800));
    const result = await watcher.stop('SIGTERM');
    expect(result.code).toBe(0);
    // old.md was quiet long before the start (its mtime); fresh.md was still inside its quiet period.
    expect(result.stdout).toMatch(
      /^ingested docs\/old\.md as node old .*\nwatch stopped: 1 ingested \(1 written, 0 skipped, 0 rejected\), 0 unchanged, 0 failed; run term-1/,
    );
    expect(await ingestsPerNode(projectDir, 'term-1')).toEqual({ old: 1 });
  }, 30_000);

  it('refuses two documents that derive one node id, ingesting the first only', async () => {
    const projectDir = await tempProject({ 'docs/x/a.md': docA1, 'docs/x.a.md': docB });
    const result = await spawnCli(['watch', '--once', '--run-id', 'dup-1', '--json'], { cwd: projectDir });
    expect(result.code).toBe(0);
    const lines = result.stdout.split('\n').filter((line) => line !== '');
    expect(lines).toHaveLength(1);
    expect(result.stderr).toMatch(
      /was not ingested: docs\/x(\.a|\/a)\.md already derives node id 'x\.a' in run dup-1/,
    );
    expect(result.stderr).toContain('1 ingested');
    expect(result.stderr).toContain('1 failed');
  });

  it.each([
    [['--once'], 'watch needs --run-id'],
    [['--run-id', 'r1', '--quiet-ms', 'soon'], "--quiet-ms 'soon' is not a whole number of milliseconds"],
    [['--run-id', 'r1', '--quiet-ms=-5'], "--quiet-ms '-5' is not a whole number"],
    [['--run-id', 'r1', '--quiet-ms', '-1'], "--quiet-ms '-1' is not a whole number"],
    [['--run-id', 'bad id!'], '--run-id'],
    [['..', '--run-id', 'r1'], 'is outside the project'],
    [['workspace', '--run-id', 'r1'], 'would watch workspace/, where the ingest writes'],
    [['.', '--run-id', 'r1'], 'would watch workspace/'],
    [['.agent/runs', '--run-id', 'r1'], 'would watch .agent/'],
    [['missing', '--run-id', 'r1'], 'missing/ is not a folder under'],
    [['docs', 'audits', '--run-id', 'r1'], 'watch takes one DIR, got 2'],
    [['--run-id', 'r1', '--onse'], "unknown option '--onse'; did you mean --once?"],
    [['--run-id', 'broken'], '.agent/watch/broken.json is not a watch state file'],
  ])('exits 2 for %j, saying %j, and ingests nothing', async (args, message) => {
    const projectDir = await tempProject({
      'docs/a.md': docA1,
      '.agent/watch/broken.json': '{"version": 2}',
    });
    const result = await spawnCli(['watch', '--once', ...args], { cwd: projectDir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
    await expect(lstat(path.join(projectDir, 'workspace'))).rejects.toThrow(/ENOENT/);
    await expect(lstat(path.join(projectDir, '.agent/runs'))).rejects.toThrow(/ENOENT/);
  });

  it('prints its help', async () => {
    const result = await spawnCli(['watch', '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Usage: artifact-ingest watch \[DIR\] --run-id ID/);
  });
});

// A symlinked DIR is refused: it would ingest documents from outside the project.
describe('artifact-ingest watch DIR', () => {
  it('refuses a DIR that is a symlink', async () => {
    const projectDir = await tempProject({ 'elsewhere/a.md': docA1 });
    await mkdir(path.join(projectDir, 'docs'));
    await symlink(path.join(projectDir, 'elsewhere'), path.join(projectDir, 'linked'));
    const result = await spawnCli(['watch', 'linked', '--once', '--run-id', 'r1'], { cwd: projectDir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('linked/ is not a folder under');
    expect(result.stderr).toContain('a symlink or a file is in its place');
  });
});
