/**
 * MCP kill mid-advance: `artifact-ingest mcp` with ingest on drives {@link STRESS_WORKFLOW} over real JSON-RPC;
 * each round starts a server, registers a file, sends `workflow_advance` with file blocks and SIGKILLs the
 * server at a random point of the advance (spread over its measured duration, or shortly after its state
 * write); the next round's server carries on. Each run ends with an unkilled server completing it, then its
 * events, snapshots, temp files and `verify`.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { runCli } from './child-process.js';
import { judgeCallOutcome } from './count-document-problems.js';
import {
  countDrift,
  countUnreadableRecordLines,
  findEscapes,
  findStaleTemps,
  findTornFiles,
  sha256Of,
  snapshotTree,
} from './count-problems.js';
import { countLostEvents, countMissingSnapshots, passesOfState } from './count-workflow-problems.js';
import { startMcpServer } from './mcp-stdio-client.js';
import type { CallOutcome, McpServerProcess } from './mcp-stdio-client.js';
import { planKill } from './plan-kill.js';
import type { KillPoint } from './plan-kill.js';
import { zero } from './stress-counts.js';
import type { Counts } from './stress-counts.js';
import {
  createProject,
  fence,
  INGEST_ON,
  readRunEvents,
  readRunState,
  STRESS_PARTS,
  STRESS_SHAPE,
  STRESS_WORKFLOW,
  tempRoot,
  uniqueText,
} from './stress-project.js';

/** The large block of every pass: big enough that a kill can land while it is written. */
const LARGE_BYTES = 256 * 1024;

/** One workflow run in its own project, and every content the harness ever gave each path. */
interface LiveRun {
  readonly name: string;
  readonly projectDir: string;
  readonly runId: string;
  /** Project-relative path -> sha256 of every version written there (for the torn count). */
  readonly allowed: Map<string, Set<string>>;
  attempts: number;
}

/** What the scenario tallies beside the counts. */
interface Tally {
  midAdvance: number;
  /** Kills aimed after the state write. */
  afterStateWrite: number;
  refused: number;
  readonly staleTemps: Set<string>;
}

/** Counts a crash or a hang of a call the server should have answered; true when it answered. */
function answered(counts: Counts, outcome: CallOutcome): outcome is Extract<CallOutcome, { kind: 'result' }> {
  const verdict = judgeCallOutcome(outcome.kind);
  if (verdict === 'crash') counts.crashes += 1;
  if (verdict === 'hang') counts.hangs += 1;
  return verdict === 'ok';
}

function allow(run: LiveRun, file: string, content: string): void {
  const hashes = run.allowed.get(file) ?? new Set<string>();
  hashes.add(sha256Of(content));
  run.allowed.set(file, hashes);
}

/** The output of one attempt at a pass: a large block, an overwritten shared path and three small blocks. */
function passOutput(run: LiveRun, node: string): string {
  const tag = `${run.runId} ${node} attempt ${String(run.attempts)}`;
  const files: [string, string][] = [
    [`s/${node}.txt`, uniqueText(LARGE_BYTES, tag)],
    ['shared/latest.txt', uniqueText(16 * 1024, tag)],
    ...[1, 2, 3].map((index): [string, string] => [`s/${node}-${String(index)}.txt`, uniqueText(300, tag)]),
  ];
  const text = `Pass ${tag}.\n\n${files.map(([file, body]) => fence(file, body)).join('\n')}`;
  for (const [file, body] of files) allow(run, `workspace/${file}`, `${body}\n`);
  allow(run, `docs/${run.runId}/${node}.md`, text);
  return text;
}

/** The node id of the pass a running state is in (`<step>` or `<step>-<pass>`), undefined once it stopped. */
function currentNode(state: Record<string, unknown>): string | undefined {
  if (state.status !== 'running' || typeof state.step !== 'string') return undefined;
  const task = state.task as { index?: unknown } | undefined;
  const pass = typeof task?.index === 'number' ? task.index : state.ralphIteration;
  return typeof pass === 'number' ? `${state.step}-${String(pass)}` : state.step;
}

/**
 * One pass: starts the run if it has no state yet, registers a fresh note, then advances with a new output,
 * SIGKILLing the server at `kill` when given. `complete` once the run has stopped; undefined when the server
 * failed a call (counted) or the state is torn.
 */
async function playPass(
  server: McpServerProcess,
  run: LiveRun,
  counts: Counts,
  tally: Tally,
  kill?: KillPoint,
): Promise<{ ms: number; replied: boolean } | 'complete' | undefined> {
  let state = await readRunState(run.projectDir, run.runId);
  if (state === undefined) {
    const started = await server.call('workflow_start', {
      workflow: 'stress',
      inputs: { parts: [...STRESS_PARTS] },
      run_id: run.runId,
    });
    if (!answered(counts, started)) return undefined;
    if (started.isError) tally.refused += 1;
    state = await readRunState(run.projectDir, run.runId);
  }
  if (state === undefined || state === 'torn') return undefined;
  const node = currentNode(state);
  if (node === undefined) return 'complete';
  run.attempts += 1;
  const note = `notes/${node}-${String(run.attempts)}.txt`;
  await mkdir(path.join(run.projectDir, 'notes'), { recursive: true });
  await writeFile(path.join(run.projectDir, note), uniqueText(2048, note));
  const registered = await server.call('register_artefacts', { run_id: run.runId, paths: [note] });
  if (!answered(counts, registered)) return undefined;
  if (registered.isError) tally.refused += 1;
  const killer =
    kill === undefined
      ? undefined
      : planKill(server, path.join(run.projectDir, '.agent/runs', run.runId), kill);
  const outcome = await server.call('workflow_advance', { run_id: run.runId, output: passOutput(run, node) });
  killer?.cancel();
  if (kill === undefined && !answered(counts, outcome)) return undefined;
  if (outcome.kind === 'result' && outcome.isError) tally.refused += 1;
  return { ms: outcome.ms, replied: outcome.kind === 'result' };
}

/** A server that has answered `initialize`, or undefined (its crash or hang counted). */
async function readyServer(projectDir: string, counts: Counts): Promise<McpServerProcess | undefined> {
  const server = startMcpServer(projectDir, { env: INGEST_ON });
  if (answered(counts, await server.initialize())) return server;
  server.kill();
  await server.exited;
  return undefined;
}

/** Right after a kill: torn workspace files and documents, a torn state.json, unreadable record lines. */
async function checkAfterKill(run: LiveRun, counts: Counts): Promise<void> {
  counts.torn += (await findTornFiles(run.projectDir, run.allowed)).length;
  if ((await readRunState(run.projectDir, run.runId)) === 'torn') counts.torn += 1;
  counts.unreadable += await countUnreadableRecordLines(run.projectDir);
}

/**
 * Completes a run with an unkilled server, then counts what the kills left: lost events, missing snapshots,
 * stale temp files (`.agent/objects` included) and drift; removes the project.
 */
async function finishRun(run: LiveRun, counts: Counts, tally: Tally): Promise<void> {
  const server = (await stopped(run)) ? undefined : await readyServer(run.projectDir, counts);
  // At most every pass of the workflow plus a few retries: a run that will not complete stops here.
  for (let pass = 0; server !== undefined && pass < 12; pass += 1) {
    const played = await playPass(server, run, counts, tally);
    if (played === 'complete' || played === undefined) break;
  }
  await server?.close();
  const state = await readRunState(run.projectDir, run.runId);
  if (state !== undefined && state !== 'torn') {
    const events = await readRunEvents(run.projectDir, run.runId);
    counts.lostEvents += countLostEvents(state, STRESS_SHAPE, events);
    const { done, current } = passesOfState(state, STRESS_SHAPE);
    counts.missingSnapshots += await countMissingSnapshots(run.projectDir, run.runId, [
      ...done,
      ...(current === undefined ? [] : [current]),
    ]);
  }
  for (const temp of findStaleTemps(await snapshotTree(run.projectDir))) {
    tally.staleTemps.add(`${run.name}/${temp}`);
  }
  const verify = await runCli(['verify', run.runId, '--project', run.projectDir, '--json']);
  if (verify.capped) counts.hangs += 1;
  counts.drift += countDrift(verify.stdout);
  await rm(run.projectDir, { recursive: true, force: true });
}

/** The median of some durations; 1 s when there are none. */
function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? 1000 : (sorted[Math.floor(sorted.length / 2)] ?? 1000);
}

/** Whether a run has stopped (complete, or its state torn): nothing is left to advance. */
async function stopped(run: LiveRun): Promise<boolean> {
  const state = await readRunState(run.projectDir, run.runId);
  return state === 'torn' || (state !== undefined && currentNode(state) === undefined);
}

async function newRun(root: string, index: number): Promise<LiveRun> {
  const name = `p${String(index)}`;
  const projectDir = path.join(root, name);
  await createProject(projectDir, { stress: STRESS_WORKFLOW });
  return { name, projectDir, runId: `kill-${String(index)}`, allowed: new Map(), attempts: 0 };
}

/** The MCP kill scenario: `kills` SIGKILLs of a server during `workflow_advance`. */
export async function mcpKills(kills: number): Promise<Counts> {
  const counts = zero([
    'torn',
    'escapes',
    'unreadable',
    'staleTemps',
    'drift',
    'lostEvents',
    'missingSnapshots',
    'crashes',
    'hangs',
  ]);
  const root = await tempRoot('mcp-kill');
  const before = await snapshotTree(root);
  const started = performance.now();
  const tally: Tally = { midAdvance: 0, afterStateWrite: 0, refused: 0, staleTemps: new Set() };
  let run: LiveRun | undefined = await newRun(root, 0);
  let runs = 1;
  // The next round's server starts while this round runs: a server's start-up is most of a round's time.
  let spare: { projectDir: string; server: Promise<McpServerProcess | undefined> } | undefined;
  const takeServer = async (projectDir: string): Promise<McpServerProcess | undefined> => {
    const ready = spare?.projectDir === projectDir ? spare.server : undefined;
    if (ready === undefined) await (await spare?.server)?.close();
    spare = { projectDir, server: readyServer(projectDir, counts) };
    return ready ?? readyServer(projectDir, counts);
  };
  // The advance's own duration, with a fresh server per pass as in the rounds, so that kills spread over it.
  const durations: number[] = [];
  for (let warm = 0; warm < 2; warm += 1) {
    const server = await takeServer(run.projectDir);
    const played = server === undefined ? undefined : await playPass(server, run, counts, tally);
    await server?.close();
    if (typeof played === 'object') durations.push(played.ms);
  }
  // A round that fails a call kills nothing: its run is finished and the next round starts another.
  for (let round = 0; counts.trials < kills && round < kills * 3; round += 1) {
    if (run !== undefined && (await stopped(run))) {
      await finishRun(run, counts, tally);
      run = undefined;
    }
    if (run === undefined) {
      run = await newRun(root, runs);
      runs += 1;
    }
    const server = await takeServer(run.projectDir);
    if (server === undefined) continue;
    // Every other kill is spread over the advance's duration as measured so far (the warm-up's, then every one
    // that answered) and half as long again, so that some land after the answer; the others follow the state
    // write by up to a quarter of it, where the engine appends the pass's events and snapshots the next pass.
    const typical = median(durations);
    const kill: KillPoint =
      round % 2 === 0
        ? { after: 'send', afterMs: Math.random() * 1.5 * typical }
        : { after: 'state_write', afterMs: Math.random() * 0.25 * typical };
    const played = await playPass(server, run, counts, tally, kill);
    server.kill();
    await server.exited;
    if (played === 'complete' || played === undefined) {
      await finishRun(run, counts, tally);
      run = undefined;
      continue;
    }
    counts.trials += 1;
    if (kill.after === 'state_write') tally.afterStateWrite += 1;
    if (played.replied) durations.push(played.ms);
    else tally.midAdvance += 1;
    await checkAfterKill(run, counts);
  }
  await (await spare?.server)?.close();
  if (run !== undefined) await finishRun(run, counts, tally);
  counts.staleTemps = tally.staleTemps.size;
  if (tally.staleTemps.size > 0) {
    // Where the kills left them: the writer's folders, the object store, the run folder.
    const shown = [...tally.staleTemps].slice(0, 10).map((temp) => [temp]);
    counts.figures = { header: ['stale temp file (project/path)'], rows: shown };
  }
  const projects = Array.from({ length: runs }, (_, index) => `p${String(index)}`);
  counts.escapes = findEscapes(before, await snapshotTree(root), projects).length;
  counts.detail = `${String(counts.trials)} kills (${String(tally.afterStateWrite)} after the state write, ${String(tally.midAdvance)} before the reply) in ${String(runs)} runs${
    tally.refused > 0 ? `, ${String(tally.refused)} refused calls` : ''
  }`;
  counts.seconds = (performance.now() - started) / 1000;
  await rm(root, { recursive: true, force: true });
  return counts;
}
