/**
 * `npm run stress`: the writer's promises under attack, with real child processes of the built CLI, real
 * SIGKILL and real symlinks in fresh temp projects (docs/security.md, "Stress run"). Prints one table of counts
 * and exits 1 when a count that must be 0 is not; then runs the scale tests (test/scale/vitest.config.ts: the
 * tests too slow for `npm test`, and the two-size tests at full size). `--quick` runs a tenth of the table and
 * no scale tests, `--no-scale` the table alone; `--self-check` plants one problem of each kind and exits 1
 * unless every count finds it. `--only-remote` runs the remote's rows alone. Not part of `npm test`.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCli } from './child-process.js';
import type { ChildExit, ChildOptions } from './child-process.js';
import {
  countDrift,
  countUnreadableRecordLines,
  findEscapes,
  findStaleTemps,
  findTornFiles,
  sha256Of,
  snapshotTree,
} from './count-problems.js';
import { startFolderSwapper } from './folder-swapper.js';
import { hostileDocumentRuns } from './hostile-document-scenario.js';
import { hostilePaths } from './hostile-paths.js';
import { mcpKills } from './mcp-kill-scenario.js';
import { mcpRace } from './mcp-race-scenario.js';
import { registrationSwap } from './register-swap-scenario.js';
import {
  remoteDownRuns,
  remotePushKills,
  remoteResets,
  remoteRunKills,
  stopRemoteStress,
} from './remote-scenarios.js';
import { selfCheck } from './self-check.js';
import { problemsOf, renderCountsTable, renderPlantedCounts, zero } from './stress-counts.js';
import type { CountKey, Counts } from './stress-counts.js';
import { fence, tempRoot } from './stress-project.js';

/** Runs the CLI under its time cap; a child that hits the cap is killed and counted as a hang. */
async function cli(counts: Counts, args: readonly string[], options: ChildOptions = {}): Promise<ChildExit> {
  const exit = await runCli(args, options);
  if (exit.capped) counts.hangs += 1;
  return exit;
}

/** A document of several blocks, one of them large enough that a kill lands mid-write; records every content. */
function killDocument(round: number, allowed: Map<string, Set<string>>, largeBytes: number): string {
  const blocks: string[] = [];
  for (let index = 0; index < 6; index += 1) {
    const file = `k/f${String(index)}.txt`;
    const size = index === 0 ? largeBytes : 200 + index * 50;
    const body = `round ${String(round)} ${randomBytes(8).toString('hex')} `
      .repeat(Math.ceil(size / 32))
      .slice(0, size);
    const hashes = allowed.get(file) ?? new Set<string>();
    hashes.add(sha256Of(`${body}\n`));
    allowed.set(file, hashes);
    blocks.push(`Block ${String(index)}:\n\n${fence(file, body)}`);
  }
  return blocks.join('\n');
}

/** Ends a kill scenario: distinct stale temps, escapes from the temp root's snapshot, wall time; removes the root. */
async function finishKills(
  counts: Counts,
  scenario: {
    readonly root: string;
    readonly before: Awaited<ReturnType<typeof snapshotTree>>;
    readonly staleTemps: ReadonlySet<string>;
    readonly started: number;
  },
): Promise<Counts> {
  counts.staleTemps = scenario.staleTemps.size;
  counts.escapes = escapesOf(scenario.before, await snapshotTree(scenario.root), [
    'project/workspace',
    'project/.agent',
    'project/docs',
  ]);
  counts.seconds = (performance.now() - scenario.started) / 1000;
  await rm(scenario.root, { recursive: true, force: true });
  return counts;
}

/** Scenario 1a: ingest killed at random points, then the same ingest run to completion. */
async function ingestKills(kills: number): Promise<Counts> {
  const counts = zero();
  const root = await tempRoot('ingest-kill');
  const project = path.join(root, 'project');
  await mkdir(path.join(project, 'docs'), { recursive: true });
  const allowed = new Map<string, Set<string>>();
  const started = performance.now();
  // The ingest's own duration, so that kills spread over all of it.
  await writeFile(path.join(project, 'docs/k.md'), killDocument(0, allowed, 4 * 1024 * 1024));
  const t0 = performance.now();
  await cli(counts, ['ingest', 'docs/k.md', '--project', project, '--run-id', 'warm']);
  const duration = performance.now() - t0;
  const before = await snapshotTree(root);
  // Each temp file once, however many rounds it survives.
  const staleTemps = new Set<string>();
  for (let round = 1; round <= kills; round += 1) {
    await writeFile(path.join(project, 'docs/k.md'), killDocument(round, allowed, 4 * 1024 * 1024));
    const runId = `kill-${String(round)}`;
    await cli(counts, ['ingest', 'docs/k.md', '--project', project, '--run-id', runId], {
      killAfterMs: Math.random() * duration,
    });
    counts.torn += (await findTornFiles(path.join(project, 'workspace'), allowed)).length;
    counts.unreadable += await countUnreadableRecordLines(project);
    await cli(counts, ['ingest', 'docs/k.md', '--project', project, '--run-id', runId]);
    for (const temp of findStaleTemps(await snapshotTree(project))) staleTemps.add(temp);
    counts.drift += countDrift((await cli(counts, ['verify', runId, '--project', project, '--json'])).stdout);
    counts.trials += 1;
  }
  return finishKills(counts, { root, before, staleTemps, started });
}

function escapesOf(
  before: Awaited<ReturnType<typeof snapshotTree>>,
  after: Awaited<ReturnType<typeof snapshotTree>>,
  allowed: readonly string[],
): number {
  return findEscapes(before, after, allowed).length;
}

const GRAPH = `name: stress
version: '1'
inputs: [topic]
nodes:
  - { id: a, type: agent_task, agent: writer, prompt: 'a {topic}', output_path: docs/a.md }
  - { id: b, type: agent_task, agent: writer, prompt: 'b {topic}', output_path: docs/b.md }
  - { id: c, type: agent_task, agent: writer, depends_on: [a, b], prompt: 'c {a.output}', output_path: docs/c.md }
  - { id: d, type: write_file, depends_on: [c], content: '{c.output}', output_path: docs/d.md }
`;

/** Scenario 1b: a graph run with ingest on killed at random, then resumed. */
async function runKills(kills: number): Promise<Counts> {
  const counts: Counts = { ...zero(), notStarted: 0 };
  const root = await tempRoot('run-kill');
  const project = path.join(root, 'project');
  const allowed = new Map<string, Set<string>>();
  await mkdir(path.join(project, 'replies'), { recursive: true });
  await mkdir(path.join(project, 'graphs'), { recursive: true });
  for (const node of ['a', 'b', 'c']) {
    const blocks: string[] = [];
    for (let index = 0; index < 4; index += 1) {
      const file = `${node}/f${String(index)}.txt`;
      const body = `${node}${String(index)} `.repeat(index === 0 ? 300_000 : 40);
      allowed.set(file, new Set([sha256Of(`${body}\n`)]));
      blocks.push(fence(file, body));
    }
    await writeFile(path.join(project, 'replies', `${node}.md`), blocks.join('\n'));
  }
  await writeFile(path.join(project, 'graphs/stress.yaml'), GRAPH);
  await writeFile(
    path.join(project, 'artifact-ingest.config.yaml'),
    'ingest: { enabled: true }\nagents:\n  writer: { kind: replay, dir: replies }\n',
  );
  const started = performance.now();
  const graph = path.join(project, 'graphs/stress.yaml');
  const t0 = performance.now();
  await cli(counts, ['run', graph, '--project', project, '--input', 'topic=t', '--run-id', 'warm']);
  const duration = performance.now() - t0;
  const before = await snapshotTree(root);
  // Each temp file once, however many rounds it survives.
  const staleTemps = new Set<string>();
  // Trials are kills that landed after the run's first state write; one before it leaves nothing to resume, so
  // it is counted apart and another kill follows (at most four times as many attempts as trials asked for).
  for (let round = 1; counts.trials < kills && round <= kills * 4; round += 1) {
    const runId = `kill-${String(round)}`;
    await cli(counts, ['run', graph, '--project', project, '--input', 'topic=t', '--run-id', runId], {
      killAfterMs: Math.random() * duration,
    });
    counts.torn += (await findTornFiles(path.join(project, 'workspace'), allowed)).length;
    counts.unreadable += await countUnreadableRecordLines(project);
    if (!existsSync(path.join(project, '.agent/runs', runId, 'state.json'))) {
      // Killed before its first state write: nothing to resume (the CLI says so); run it afresh under the same
      // id, which must sweep what the kill left. Not a trial: another kill follows.
      counts.notStarted = (counts.notStarted ?? 0) + 1;
      await cli(counts, ['run', graph, '--project', project, '--input', 'topic=t', '--run-id', runId]);
    } else {
      counts.trials += 1;
      await cli(counts, ['run', '--resume', runId, '--project', project]);
    }
    for (const temp of findStaleTemps(await snapshotTree(project))) staleTemps.add(temp);
    counts.drift += countDrift((await cli(counts, ['verify', runId, '--project', project, '--json'])).stdout);
  }
  return finishKills(counts, { root, before, staleTemps, started });
}

/** Scenario 2: concurrent ingesters sharing paths, then `verify`. */
async function concurrentWriters(writers: number, paths: number, rounds: number): Promise<Counts> {
  const counts = zero();
  const root = await tempRoot('concurrent');
  const project = path.join(root, 'project');
  await mkdir(path.join(project, 'docs'), { recursive: true });
  const started = performance.now();
  for (let round = 1; round <= rounds; round += 1) {
    const ingests: Promise<unknown>[] = [];
    for (let writer = 0; writer < writers; writer += 1) {
      const blocks: string[] = [];
      for (let index = 0; index < paths; index += 1) {
        blocks.push(fence(`shared/p${String(index)}.txt`, `writer ${String(writer)} round ${String(round)}`));
      }
      const doc = `docs/w${String(writer)}.md`;
      await writeFile(path.join(project, doc), blocks.join('\n'));
      ingests.push(
        cli(counts, [
          'ingest',
          doc,
          '--project',
          project,
          '--run-id',
          `w${String(writer)}-r${String(round)}`,
        ]),
      );
    }
    await Promise.all(ingests);
    counts.drift += countDrift((await cli(counts, ['verify', '--project', project, '--json'])).stdout);
    counts.trials += writers;
  }
  counts.unreadable = await countUnreadableRecordLines(project);
  counts.staleTemps = findStaleTemps(await snapshotTree(project)).length;
  counts.seconds = (performance.now() - started) / 1000;
  await rm(root, { recursive: true, force: true });
  return counts;
}

/** Plants symlinks to outside targets in workspace/, which hostile paths try to write through. */
async function plantSymlinks(workspace: string, outside: string): Promise<void> {
  await mkdir(path.join(workspace, 'real'), { recursive: true });
  await symlink(outside, path.join(workspace, 'link'));
  await symlink(outside, path.join(workspace, 'real', 'inner'));
  await symlink(path.join(outside, 'target.txt'), path.join(workspace, 'file-link.txt'));
  await symlink('../../outside', path.join(workspace, 'relative'));
}

/** Scenario 3: hostile file= paths, a few hundred blocks per document. */
async function pathFuzz(total: number): Promise<Counts> {
  const counts = zero();
  const root = await tempRoot('fuzz');
  const project = path.join(root, 'project');
  const outside = path.join(root, 'outside');
  await mkdir(outside);
  await mkdir(path.join(project, 'docs/fuzz'), { recursive: true });
  await plantSymlinks(path.join(project, 'workspace'), outside);
  const started = performance.now();
  const paths = hostilePaths(total);
  const perDocument = 500;
  const documents: string[] = [];
  for (let at = 0; at < paths.length; at += perDocument) {
    const doc = `docs/fuzz/d${String(at / perDocument).padStart(4, '0')}.md`;
    const blocks = paths
      .slice(at, at + perDocument)
      .map((file, index) => fence(file, `fuzz ${String(at + index)}`));
    await writeFile(path.join(project, doc), blocks.join('\n'));
    documents.push(doc);
  }
  const before = await snapshotTree(root);
  // A few documents per process: one process per path would measure process start-up, not the writer.
  for (let at = 0; at < documents.length; at += 20) {
    await cli(counts, [
      'ingest',
      ...documents.slice(at, at + 20),
      '--project',
      project,
      '--run-id',
      `fuzz-${String(at)}`,
    ]);
  }
  counts.escapes = escapesOf(before, await snapshotTree(root), ['project/workspace', 'project/.agent']);
  counts.unreadable = await countUnreadableRecordLines(project);
  counts.staleTemps = findStaleTemps(await snapshotTree(project)).length;
  counts.trials = paths.length;
  counts.seconds = (performance.now() - started) / 1000;
  await rm(root, { recursive: true, force: true });
  return counts;
}

/** Scenario 4: `ingests` ingests write into workspace/a/ while another process swaps it for a symlink to outside. */
async function symlinkSwapRace(ingests: number): Promise<Counts> {
  const counts = zero();
  const root = await tempRoot('swap');
  const project = path.join(root, 'project');
  const outside = path.join(root, 'outside');
  await mkdir(outside);
  await mkdir(path.join(project, 'docs'), { recursive: true });
  await mkdir(path.join(project, 'workspace/a'), { recursive: true });
  const blocks = Array.from({ length: 50 }, (_, index) =>
    fence(`a/s${String(index)}/f.txt`, `swap ${String(index)}`),
  );
  await writeFile(path.join(project, 'docs/swap.md'), blocks.join('\n'));
  const stopFile = path.join(root, 'stop');
  const before = await snapshotTree(root);
  const started = performance.now();
  const swapper = startFolderSwapper(path.join(project, 'workspace/a'), outside, stopFile);
  for (let round = 1; round <= ingests; round += 1) {
    await cli(counts, ['ingest', 'docs/swap.md', '--project', project, '--run-id', `swap-${String(round)}`]);
  }
  await writeFile(stopFile, 'stop');
  counts.trials = await swapper;
  const after = await snapshotTree(root);
  counts.escapes = escapesOf(before, after, ['project/workspace', 'project/.agent', 'stop']);
  counts.unreadable = await countUnreadableRecordLines(project);
  counts.seconds = (performance.now() - started) / 1000;
  await rm(root, { recursive: true, force: true });
  return counts;
}

function flag(name: string): boolean {
  return process.argv.includes(name);
}

function numberFlag(name: string, fallback: number): number {
  const at = process.argv.indexOf(name);
  const value = at === -1 ? undefined : Number(process.argv[at + 1]);
  return value !== undefined && Number.isInteger(value) && value >= 0 ? value : fallback;
}

/** A scenario of the table: its name (N is its count), its count, and the scenario. */
type Scenario = readonly [string, number, (count: number) => Promise<Counts>];

async function main(): Promise<void> {
  const scale = flag('--quick') ? 0.1 : 1;
  const scaled = (name: string, full: number): number =>
    numberFlag(name, Math.max(1, Math.round(full * scale)));
  if (flag('--self-check')) {
    const planted = await selfCheck();
    process.stdout.write(renderPlantedCounts(planted));
    const missed = planted.measured.filter((key: CountKey) => planted[key] < 1);
    if (missed.length > 0) {
      process.stderr.write(`stress --self-check: the harness missed a planted ${missed.join(', ')}\n`);
      process.exitCode = 1;
    }
    return;
  }
  // One table per group, each with the columns its scenarios count; a count of 0 skips its scenario.
  const groups: readonly (readonly Scenario[])[] = [
    [
      ['ingest kill -9 (N)', scaled('--ingest-kills', 200), ingestKills],
      ['run kill -9 + resume (N)', scaled('--run-kills', 50), runKills],
      [
        '8 concurrent ingesters x 10 paths (N rounds)',
        scaled('--concurrent-rounds', 10),
        (rounds) => concurrentWriters(8, 10, rounds),
      ],
      ['path fuzz (N)', scaled('--fuzz-paths', 100_000), pathFuzz],
      ['symlink swap race (N ingests; trials = swaps)', scaled('--swap-ingests', 40), symlinkSwapRace],
    ],
    [
      ['mcp kill -9 mid-advance (N kills)', scaled('--mcp-kills', 100), mcpKills],
      ['2 mcp servers racing (N rounds)', scaled('--race-rounds', 200), mcpRace],
      [
        'symlink swapper during registration (N rounds of 25)',
        scaled('--register-swap-rounds', 20),
        (rounds) => registrationSwap(rounds, 25),
      ],
    ],
    [['hostile documents (first N)', scaled('--hostile-documents', 7), hostileDocumentRuns]],
    // The remote (issue 26): real PostgreSQL and s3rver, started once for these rows.
    [
      ['remote: push kill -9 + push (N)', scaled('--remote-push-kills', 50), remotePushKills],
      ['remote: run kill -9 + push (N)', scaled('--remote-run-kills', 50), remoteRunKills],
      ['remote: catalog down for a run + push (N runs)', scaled('--remote-down-runs', 5), remoteDownRuns],
      ['remote: connections reset mid-push + push (N)', scaled('--remote-resets', 20), remoteResets],
    ],
  ];
  let problems = 0;
  let tables = 0;
  const onlyRemote = flag('--only-remote');
  for (const group of onlyRemote ? groups.slice(-1) : groups) {
    const rows: [string, Counts][] = [];
    for (const [name, count, scenario] of group) {
      if (count > 0) rows.push([name.replace('N', String(count)), await scenario(count)]);
    }
    if (rows.length === 0) continue;
    process.stdout.write(`${tables > 0 ? '\n' : ''}${renderCountsTable(rows)}`);
    tables += 1;
    problems += rows.reduce((sum, [, counts]) => sum + problemsOf(counts), 0);
  }
  await stopRemoteStress();
  if (problems > 0) process.exitCode = 1;
  if (!flag('--quick') && !flag('--self-check') && !flag('--no-scale') && !onlyRemote) {
    process.stdout.write('\nThe scale tests (test/scale/vitest.config.ts; `npm run test:scale` alone):\n');
    if (!(await runScaleTests())) process.exitCode = 1;
  }
}

/** Runs test/scale/ and the two-size tests at their full size in a vitest child; true when all pass. */
function runScaleTests(): Promise<boolean> {
  const vitest = fileURLToPath(new URL('../../node_modules/vitest/vitest.mjs', import.meta.url));
  const config = fileURLToPath(new URL('../scale/vitest.config.ts', import.meta.url));
  const child = spawn(process.execPath, [vitest, 'run', '--config', config], { stdio: 'inherit' });
  return new Promise((resolve) => {
    child.once('error', () => {
      resolve(false);
    });
    child.once('close', (code) => {
      resolve(code === 0);
    });
  });
}

await main();
