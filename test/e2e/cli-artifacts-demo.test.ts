import { createHash } from 'node:crypto';
import { chmod, cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readTree } from '../helpers/lineage-project.js';
import { runCli } from '../helpers/run-cli.js';
import { treeDigest } from '../helpers/tree-digest.js';

// Two runs of the embedded demo (the team graph, replay agent, ingest on) through the real CLI; the second
// run's replies change one line of src/server.js and add src/version.js (in pm's reply). Every lineage command is then
// checked against what the ingest itself wrote down (manifests) and the live workspace.

const GOAL = 'goal=a tiny URL shortener with tests and a README';
const SERVER_OLD = 'server.listen(process.env.PORT ?? 3000);';
const SERVER_NEW = 'server.listen(Number(process.env.PORT ?? 8080));';

interface Manifest {
  readonly node_id: string;
  readonly artifacts: readonly { workspace_path: string; sha256: string; status: string; reason: string }[];
}

interface ReplayJson {
  readonly steps: readonly {
    step: number | null;
    taskId: string;
    artifacts: readonly { path: string; previous: string | null; diff?: { kind: string; patch?: string } }[];
  }[];
  readonly before?: readonly unknown[];
}

let root: string;
let project: string;
let runs: string[];

async function cli(
  args: readonly string[],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return runCli([...args, '--project', project]);
}

async function json<T>(args: readonly string[]): Promise<T> {
  const result = await cli([...args, '--json']);
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout) as T;
}

const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

/** The workspace files the ingest placed for `nodes`, by path, as each node's manifest records them. */
async function manifestFiles(runId: string, nodes: readonly string[]): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const node of nodes) {
    const manifest = JSON.parse(
      await readFile(path.join(project, '.agent', 'runs', runId, 'manifests', `${node}.json`), 'utf8'),
    ) as Manifest;
    for (const entry of manifest.artifacts) {
      const onDisk = entry.status === 'written' || entry.reason.startsWith('unchanged');
      if (onDisk) files.set(entry.workspace_path.slice('workspace/'.length), entry.sha256);
    }
  }
  return files;
}

function hashesOf(tree: Map<string, Buffer>): Map<string, string> {
  return new Map([...tree].map(([file, bytes]) => [file, sha256(bytes)]));
}

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'ai-artifacts-demo-'));
  project = path.join(root, 'demo');
  const demo = await runCli(['demo', '--dir', project]);
  expect(demo.code).toBe(0);
  const apiReply = path.join(project, 'replies', 'task_api.md');
  const text = await readFile(apiReply, 'utf8');
  expect(text).toContain(SERVER_OLD);
  await writeFile(apiReply, text.replace(SERVER_OLD, SERVER_NEW));
  const pmReply = path.join(project, 'replies', 'pm.md');
  await writeFile(
    pmReply,
    `${await readFile(pmReply, 'utf8')}\n\`\`\`js file=src/version.js\nexport const version = '1.1.0';\n\`\`\`\n`,
  );
  const second = await runCli(['run', 'team', '--project', project, '--input', GOAL]);
  expect(second.stderr).toBe('');
  expect(second.code).toBe(0);
  runs = (await readdir(path.join(project, '.agent', 'runs'))).sort();
  expect(runs).toHaveLength(2);
}, 60_000);

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('artifacts of two demo runs, through the CLI', () => {
  it('logs both versions of the changed file with their line counts, and one of an unchanged file', async () => {
    const server = await json<{ versions: { runId: string; linesAdded: number; linesRemoved: number }[] }>([
      'log',
      'src/server.js',
    ]);
    // The second version changed one line, so both versions have as many lines as the live file.
    const lines =
      (await readFile(path.join(project, 'workspace', 'src', 'server.js'), 'utf8')).split('\n').length - 1;
    expect(lines).toBeGreaterThan(10);
    expect(server.versions.map((v) => [v.runId, v.linesAdded, v.linesRemoved])).toEqual([
      [runs[0], lines, 0],
      [runs[1], 1, 1],
    ]);
    const store = await json<{ versions: unknown[] }>(['log', 'workspace/src/store.js']);
    expect(store.versions).toHaveLength(1);
    const created = await json<{ versions: { runId: string; linesAdded: number }[] }>([
      'log',
      'src/version.js',
    ]);
    expect(created.versions.map((v) => [v.runId, v.linesAdded])).toEqual([[runs[1], 1]]);
  });

  it('checks out every step of both runs with the exact bytes the ingest placed at that point', async () => {
    let before = new Map<string, string>();
    for (const runId of runs) {
      const replay = await json<ReplayJson>(['replay', runId]);
      const steps = replay.steps.filter((step) => step.step !== null);
      expect(steps).toHaveLength(7);
      const done: string[] = [];
      for (let step = 0; step <= steps.length; step++) {
        if (step > 0) done.push(steps[step - 1]!.taskId);
        const to = path.join(root, `checkout-${runId}-${step}`);
        await json(['checkout', '--run', runId, '--step', String(step), '--to', to]);
        const expected = new Map([...before, ...(await manifestFiles(runId, done))]);
        expect(hashesOf(await readTree(to))).toEqual(expected);
      }
      before = hashesOf(await readTree(path.join(root, `checkout-${runId}-${steps.length}`)));
    }
    // After the last step of the last run, the checkout is the live workspace, byte for byte.
    const last = path.join(root, `checkout-${runs[1]!}-7`);
    expect(await readTree(last)).toEqual(await readTree(path.join(project, 'workspace')));
  });

  it('walks the first run back to an empty workspace, and the second back to the first', async () => {
    const first = await json<ReplayJson>(['replay', runs[0]!, '--backward']);
    expect(first.before).toEqual([]);
    const firstArtifacts = first.steps.flatMap((step) => step.artifacts);
    expect(firstArtifacts.length).toBeGreaterThan(0);
    expect(firstArtifacts.every((artifact) => artifact.previous === null)).toBe(true);
    const second = await json<ReplayJson>(['replay', runs[1]!, '--backward', '--path', 'src/server.js']);
    const [change] = second.steps.flatMap((step) => step.artifacts);
    expect(change?.diff?.kind).toBe('text');
    expect(change?.diff?.patch).toContain(`-${SERVER_OLD}\n+${SERVER_NEW}\n`);
    expect(second.before).toHaveLength(1);
  });

  it('never changes a run: .agent/runs and the workspace hash the same before and after every command', async () => {
    const runsBefore = await treeDigest(path.join(project, '.agent', 'runs'));
    const workspaceBefore = await treeDigest(path.join(project, 'workspace'));
    for (const args of [
      ['replay', runs[0]!],
      ['replay', runs[1]!, '--backward'],
      ['checkout', '--run', runs[1]!, '--step', '3', '--to', path.join(root, 'read-only-check')],
      ['checkout', '--at', new Date().toISOString(), '--to', path.join(root, 'read-only-at')],
      ['log', 'src/server.js'],
      ['verify'],
      ['verify', runs[0]!, '--strict'],
      ['bundle', runs[0]!, '-o', path.join(root, 'read-only.tar.gz')],
    ]) {
      const result = await cli(args);
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0);
    }
    expect(await treeDigest(path.join(project, '.agent', 'runs'))).toBe(runsBefore);
    expect(await treeDigest(path.join(project, 'workspace'))).toBe(workspaceBefore);
  });

  it('reports a corrupted object and a hand-edited workspace file, and --strict makes them fail', async () => {
    // On a copy, so the project stays intact for the bundle test that follows.
    const copy = path.join(root, 'corrupted');
    await cp(project, copy, { recursive: true });
    const inCopy = (args: readonly string[]) => runCli([...args, '--project', copy]);
    const clean = await inCopy(['verify', '--json']);
    expect((JSON.parse(clean.stdout) as { problems: unknown[] }).problems).toEqual([]);
    const server = await json<{ versions: { contentHash: string }[] }>(['log', 'src/server.js']);
    const hex = server.versions[0]!.contentHash.slice('sha256:'.length);
    const object = path.join(copy, '.agent', 'objects', 'sha256', hex.slice(0, 2), hex.slice(2));
    await chmod(object, 0o644);
    await writeFile(object, 'tampered\n');
    const readme = path.join(copy, 'workspace', 'README.md');
    await writeFile(readme, `${await readFile(readme, 'utf8')}hand edit\n`);

    const lenient = await inCopy(['verify', '--json']);
    expect(lenient.code).toBe(1);
    const report = JSON.parse(lenient.stdout) as {
      problems: { code: string; path?: string; contentHash?: string }[];
    };
    expect(report.problems).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ code: 'corrupt_object', contentHash: server.versions[0]!.contentHash }),
        expect.objectContaining({ code: 'workspace_modified', path: 'workspace/README.md' }),
      ]),
    );
    const strict = await inCopy(['verify', '--strict']);
    expect(strict.code).toBe(1);
    expect(strict.stdout).toContain('corrupt_object');
    expect(strict.stdout).toContain('workspace_modified');
  });

  it('bundles both runs, deletes the project, and a fresh project that imports them replays identically', async () => {
    const expected = new Map<string, unknown>();
    for (const runId of runs) {
      for (const extra of [[], ['--backward']]) {
        expected.set([runId, ...extra].join(' '), await json(['replay', runId, ...extra]));
      }
    }
    const logBefore = await json(['log', 'src/server.js']);
    const bundles = runs.map((runId) => path.join(root, `${runId}.tar.gz`));
    for (const [index, runId] of runs.entries()) {
      expect((await cli(['bundle', runId, '-o', bundles[index]!])).code).toBe(0);
    }
    await rm(project, { recursive: true, force: true });

    const fresh = path.join(root, 'fresh');
    await mkdir(fresh);
    for (const bundle of bundles) {
      const imported = await runCli(['import', bundle, '--project', fresh]);
      expect(imported.stderr).toBe('');
      expect(imported.code).toBe(0);
    }
    for (const runId of runs) {
      for (const extra of [[], ['--backward']]) {
        const there = await runCli(['replay', runId, ...extra, '--json', '--project', fresh]);
        expect(there.code).toBe(0);
        expect(JSON.parse(there.stdout)).toEqual(expected.get([runId, ...extra].join(' ')));
      }
    }
    const logThere = await runCli(['log', 'src/server.js', '--json', '--project', fresh]);
    expect(JSON.parse(logThere.stdout)).toEqual(logBefore);
    // Every object arrived intact; only the workspace, which a bundle does not carry, is missing.
    const verified = await runCli(['verify', '--json', '--project', fresh]);
    const codes = new Set(
      (JSON.parse(verified.stdout) as { problems: { code: string }[] }).problems.map((p) => p.code),
    );
    expect([...codes]).toEqual(['workspace_missing']);
  });
});
