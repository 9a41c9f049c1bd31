/**
 * The graph-runs part of `npm run bench`: chain and fan-out graphs of 50 and 200 nodes run through `runGraph`
 * with the replay agent, ingest off and on, each beside the floor of one durable write per node transition
 * measured in the same process, plus state.json's rewrite alone and syscalls per node (strace, in a child).
 * Run alone with `npx tsx test/bench/graph-runs.ts` (prints the section; `npm run bench` writes it into
 * docs/benchmarks.md); `--one <chain|fanout> <nodes> <on|off>` runs one graph (what strace watches) and prints its seconds and CPU.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { mkdir, mkdtemp, open, rename, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseNodeId, parseRunId } from '../../src/project/index.js';
import { createReplayAgent, runGraph } from '../../src/runtime/index.js';
import type { GraphDefinition, NodeState, RunState } from '../../src/runtime/index.js';
import { writeRunState } from '../../src/runtime/run/state/run-state.js';
import { openProjectStore } from '../../src/store/index.js';

export type Shape = 'chain' | 'fanout';
const SIZES = [50, 200] as const;
const SHAPES: readonly Shape[] = ['chain', 'fanout'];
/** Interleaved rounds of each graph and its floor; the tables give the median. */
const ROUNDS = 3;
/** A ~200 B line, the size of one node transition. */
const FLOOR_LINE = `${JSON.stringify({ seq: 1, node: 'n1', status: 'completed', pad: 'x'.repeat(150) })}\n`;

const fmt = (value: number): string =>
  value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2);

/** Files node i's document carries: one or two `file=` blocks. */
const filesOf = (i: number): number => 1 + (i % 2);

export function graphOf(shape: Shape, nodes: number): GraphDefinition {
  const graphNodes = Array.from({ length: nodes }, (_, index) => {
    const i = index + 1;
    const dependsOn = i === 1 ? [] : shape === 'chain' ? [`n${String(i - 1)}`] : ['n1'];
    return {
      id: parseNodeId(`n${String(i)}`),
      type: 'agent_task' as const,
      agent: 'replay',
      prompt: `write part ${String(i)} of {goal}`,
      outputPath: `docs/n${String(i)}.md`,
      dependsOn: dependsOn.map((id) => parseNodeId(id)),
    };
  });
  const name = `bench-${shape}-${String(nodes)}`;
  return {
    name,
    version: '1',
    description: name,
    inputs: ['goal'],
    mode: 'team',
    nodes: graphNodes,
    hash: createHash('sha256').update(JSON.stringify(graphNodes)).digest('hex'),
    source: `bench:${name}`,
  };
}

export async function writeReplies(dir: string, nodes: number): Promise<void> {
  await mkdir(dir, { recursive: true });
  for (let i = 1; i <= nodes; i++) {
    const blocks = Array.from(
      { length: filesOf(i) },
      (_, b) =>
        `\`\`\`ts file=src/n${String(i)}-${String(b)}.ts\nexport const part${String(i)}x${String(b)} = ${String(i * 31 + b)};\n\`\`\`\n`,
    );
    await writeFile(
      path.join(dir, `n${String(i)}.md`),
      `# Part ${String(i)}\n\nSome prose about this part of the plan.\n\n${blocks.join('\n')}`,
    );
  }
}

/** What one graph run took: wall seconds, and CPU seconds of the whole process (every thread). */
interface GraphTime {
  readonly seconds: number;
  readonly cpu: number;
}

/** One run of the graph in a fresh project. */
export async function timeGraph(
  root: string,
  shape: Shape,
  nodes: number,
  ingest: boolean,
): Promise<GraphTime> {
  const projectDir = await mkdtemp(path.join(root, `${shape}-${String(nodes)}-`));
  const replies = path.join(projectDir, 'replies');
  await writeReplies(replies, nodes);
  const agent = createReplayAgent('replay', { kind: 'replay', dir: replies });
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const result = await runGraph({
    projectDir,
    graph: graphOf(shape, nodes),
    inputs: { goal: 'a bench' },
    agentFor: () => agent,
    runId: 'bench',
    ingest: { enabled: ingest },
  });
  const seconds = (performance.now() - t0) / 1000;
  const used = process.cpuUsage(cpu0);
  const cpu = (used.user + used.system) / 1e6;
  if (result.status !== 'completed') throw new Error(`bench run ${shape} ${String(nodes)} ${result.status}`);
  await rm(projectDir, { recursive: true, force: true });
  return { seconds, cpu };
}

/**
 * The floor: per node two fsynced O_APPEND writes of a ~200 B line (running, completed) and, with ingest on,
 * one durable write (temp + fsync + rename) per file the node's document carries.
 */
async function timeFloor(root: string, nodes: number, ingest: boolean): Promise<number> {
  const dir = await mkdtemp(path.join(root, 'floor-'));
  const t0 = performance.now();
  const log = await open(
    path.join(dir, 'log.jsonl'),
    constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND,
  );
  for (let i = 1; i <= nodes; i++) {
    await log.write(FLOOR_LINE);
    await log.datasync();
    if (ingest) {
      for (let b = 0; b < filesOf(i); b++) {
        const temp = path.join(dir, `.f${String(i)}-${String(b)}.tmp`);
        const file = await open(temp, 'wx', 0o644);
        await file.writeFile(`export const part${String(i)}x${String(b)} = ${String(i * 31 + b)};\n`);
        await file.sync();
        await file.close();
        await rename(temp, path.join(dir, `f${String(i)}-${String(b)}.ts`));
      }
    }
    await log.write(FLOOR_LINE);
    await log.datasync();
  }
  await log.close();
  const seconds = (performance.now() - t0) / 1000;
  await rm(dir, { recursive: true, force: true });
  return seconds;
}

/** A completed run's state of `nodes` nodes, as a 2-file ingest leaves it. */
function stateOf(nodes: number): RunState {
  const at = '2026-01-01T00:00:00.000Z';
  const entries: [string, NodeState][] = Array.from({ length: nodes }, (_, index) => [
    `n${String(index + 1)}`,
    {
      status: 'completed',
      attempts: 1,
      started_at: at,
      finished_at: at,
      output_path: `docs/n${String(index + 1)}.md`,
      output_sha256: 'a'.repeat(64),
      prompt_sha256: 'b'.repeat(64),
      agent: 'replay',
      ingest: {
        total_blocks: 2,
        written: 2,
        skipped: 0,
        rejected: 0,
        manifest_path: `.agent/runs/bench/manifests/n${String(index + 1)}.json`,
        problems: [],
      },
    },
  ]);
  return {
    version: 1,
    run_id: parseRunId('bench'),
    status: 'running',
    graph: { name: 'bench', hash: 'c'.repeat(64), source: 'bench' },
    mode: 'team',
    inputs: { goal: 'a bench' },
    ingest_enabled: true,
    created_at: at,
    updated_at: at,
    nodes: Object.fromEntries(entries),
  };
}

/** Milliseconds of one state.json rewrite (atomic, fsynced) of a run of `nodes` nodes, median of `rounds`. */
async function timeStateWrite(root: string, nodes: number, rounds: number): Promise<number> {
  const projectDir = await mkdtemp(path.join(root, 'state-'));
  const confined = openProjectStore(projectDir);
  const state = stateOf(nodes);
  const times: number[] = [];
  try {
    for (let r = 0; r < rounds; r++) {
      const t0 = performance.now();
      await writeRunState(confined, state);
      times.push(performance.now() - t0);
    }
  } finally {
    await confined.close();
    await rm(projectDir, { recursive: true, force: true });
  }
  return median(times);
}

/** Milliseconds of one fsynced O_APPEND of a ~200 B line, median of `rounds`. */
async function timeAppend(root: string, rounds: number): Promise<number> {
  const dir = await mkdtemp(path.join(root, 'append-'));
  const log = await open(
    path.join(dir, 'log.jsonl'),
    constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND,
  );
  const times: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const t0 = performance.now();
    await log.write(FLOOR_LINE);
    await log.datasync();
    times.push(performance.now() - t0);
  }
  await log.close();
  await rm(dir, { recursive: true, force: true });
  return median(times);
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

const TRACED = ['fsync', 'fdatasync', 'rename', 'openat', 'write'] as const;

/** Syscall counts of one graph run in a child under `strace -c -f`, or null without strace. */
function straceCounts(shape: Shape, nodes: number, ingest: boolean): Record<string, number> | null {
  const tsx = createRequire(import.meta.url).resolve('tsx');
  const script = fileURLToPath(import.meta.url);
  const child = spawnSync(
    'strace',
    [
      '-c',
      '-f',
      '-e',
      `trace=${TRACED.join(',')}`,
      process.execPath,
      '--import',
      tsx,
      script,
      '--one',
      shape,
      String(nodes),
      ingest ? 'on' : 'off',
    ],
    { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 },
  );
  if (child.error !== undefined || child.status !== 0) return null;
  const counts: Record<string, number> = {};
  for (const line of child.stderr.split('\n')) {
    // "% time seconds usecs/call calls errors syscall": calls is the 4th column, the name the last.
    const columns = line.trim().split(/\s+/);
    const name = columns.at(-1);
    if (name === undefined || !(TRACED as readonly string[]).includes(name)) continue;
    counts[name] = Number(columns[3]);
  }
  return counts;
}

/** Issue 14's before figures and where a node's time goes, kept beside the measured tables. */
const BEFORE_AND_WHERE = `### Before issue 14 (2026-11-23, main at eb09937, the same bench)

state.json was rewritten whole (temp file, fsync, rename, folder fsync) at every node transition, the
scheduler scanned every node for each one that finished, and progress counted every node's status. Measured on
a quiet machine, right before a run of the build that added the transition log (D77), whose three repeats gave
t(200)/t(50) of 3.35-4.50 (chain, off), 3.37-3.60 (fan-out, off), 3.42-5.19 (chain, on) and 2.11-4.96
(fan-out, on): a 50-node run takes about a second, so single ratios vary by a quarter.

| shape | nodes | ingest | seconds | ms per node | CPU ms per node | floor ms per node | graph / floor |
|---|---:|---|---:|---:|---:|---:|---:|
| chain | 50 | off | 1.06 | 21.2 | 18.1 | 0.70 | 30.2x |
| chain | 200 | off | 4.47 | 22.4 | 19.2 | 0.66 | 33.9x |
| fanout | 50 | off | 1.05 | 21.0 | 19.8 | 0.51 | 40.7x |
| fanout | 200 | off | 3.92 | 19.6 | 19.0 | 0.57 | 34.6x |
| chain | 50 | on | 2.28 | 45.5 | 39.1 | 1.34 | 34.0x |
| chain | 200 | on | 8.64 | 43.2 | 37.3 | 2.05 | 21.0x |
| fanout | 50 | on | 1.61 | 32.2 | 32.3 | 2.17 | 14.8x |
| fanout | 200 | on | 5.78 | 28.9 | 28.3 | 2.14 | 13.5x |

| shape | ingest | t(200) / t(50) | CPU(200) / CPU(50) |
|---|---|---:|---:|
| chain | off | 4.23 | 4.26 |
| fanout | off | 3.74 | 3.82 |
| chain | on | 3.80 | 3.82 |
| fanout | on | 3.60 | 3.51 |

| shape | ingest | fsync | fdatasync | rename | openat | write |
|---|---|---:|---:|---:|---:|---:|
| chain | off | 14.0 | 0.00 | 5.00 | 42.4 | 169 |
| chain | on | 26.0 | 0.00 | 9.00 | 79.5 | 295 |

state.json alone, timed inside a 100-node chain with ingest off: 2.4 s of commits in about 8 s (a third of
the wall time, with ingest on a sixth); alone, a rewrite took 1.4 ms at 50 nodes and 3.3 ms at 200 (4-11
fsynced appends), growing with the graph, twice per node.

### Where a node's durable writes go now

Counted with \`strace -f -y\` on a 20-node chain, per node. Ingest off, 10 fsyncs: the run's state 2
(\`fdatasync\` of transitions.jsonl: running, completed), the node's document 2 (the file and docs/), the
artifact records 6 (the document and the trace as objects, a file and its folder each, and their two
artifacts.jsonl lines). Ingest on, about 23: the same plus the workspace files (about 2.5 for 1.5 files:
each file and its folder once per batch), the manifest 2, and the records of the placed files (about 8.5:
objects, path index, artifacts.jsonl). The run's own share is the floor's 2; the records are about 60% of
the rest (src/artifacts/record). The wall time of these runs follows the disk, which other work shares here;
CPU per node is the steadier figure.

Why not within 3x the floor: beside the floor's two appends, the layout asks each node (ingest off) for its
document in docs/ (a durable file write), the document and the trace as objects (one durable file write each),
their two record lines in artifacts.jsonl and the document's path index line (one fsynced append each). Timed
alone on this machine (2026-11-23), a durable file write (temp, fsync, rename, folder fsync) took 0.47-0.49 ms
and an fsynced append 0.37 ms: those writes alone are about 2.5 ms per node beside a floor of about 0.7, so a
node costs at least 4.6x the floor before any CPU. Within 3x would take one durable append per node carrying
its document, trace and records, with docs/, the objects and the record files made from it later: a change of
the on-disk layout the artifacts spec fixes, not made.
`;

/** The markdown section: graphs beside the floor, t(200)/t(50), state.json alone, syscalls per node. */
export async function graphRunsSection(): Promise<string> {
  const root = await mkdtemp(path.join(tmpdir(), 'ai-bench-graph-'));
  const rows: string[] = [];
  const growth: string[] = [];
  try {
    // One run not counted: the first run of a process loads modules and starts the parse worker.
    await timeGraph(root, 'chain', 10, true);
    for (const ingest of [false, true]) {
      for (const shape of SHAPES) {
        // Rounds interleave the sizes and each graph with its floor, so a change in the machine's mood between
        // rounds reaches the 50- and the 200-node run alike; t(200)/t(50) is taken within each round, and every
        // figure is the median of the rounds (a 50-node run takes under a second: one run varies by a quarter).
        const graphTimes = new Map<number, GraphTime[]>(SIZES.map((nodes) => [nodes, []]));
        const floorTimes = new Map<number, number[]>(SIZES.map((nodes) => [nodes, []]));
        for (let round = 0; round < ROUNDS; round++) {
          for (const nodes of SIZES) {
            graphTimes.get(nodes)?.push(await timeGraph(root, shape, nodes, ingest));
            floorTimes.get(nodes)?.push(await timeFloor(root, nodes, ingest));
          }
        }
        for (const nodes of SIZES) {
          const times = graphTimes.get(nodes) ?? [];
          const seconds = median(times.map((time) => time.seconds));
          const cpu = median(times.map((time) => time.cpu));
          const floor = median(floorTimes.get(nodes) ?? []);
          const row = `| ${shape} | ${String(nodes)} | ${ingest ? 'on' : 'off'} | ${fmt(seconds)} | ${fmt((seconds * 1000) / nodes)} | ${fmt((cpu * 1000) / nodes)} | ${fmt((floor * 1000) / nodes)} | ${fmt(seconds / floor)}x |`;
          rows.push(row);
          console.log(row);
        }
        const large = graphTimes.get(200) ?? [];
        const small = graphTimes.get(50) ?? [];
        const perRound = (of: (time: GraphTime) => number): number =>
          median(large.map((time, round) => of(time) / of(small[round] ?? time)));
        growth.push(
          `| ${shape} | ${ingest ? 'on' : 'off'} | ${fmt(perRound((time) => time.seconds))} | ${fmt(perRound((time) => time.cpu))} |`,
        );
        console.log(growth.at(-1));
      }
    }
    const append = await timeAppend(root, 40);
    const stateRows = [];
    for (const nodes of SIZES) {
      const ms = await timeStateWrite(root, nodes, 20);
      stateRows.push(`| ${String(nodes)} | ${fmt(ms)} | ${fmt(append)} | ${fmt(ms / append)}x |`);
      console.log(stateRows.at(-1));
    }
    const straceRows: string[] = [];
    for (const ingest of [false, true]) {
      const small = straceCounts('chain', 10, ingest);
      const large = straceCounts('chain', 50, ingest);
      if (small === null || large === null) break;
      const perNode = (name: string): string => fmt(((large[name] ?? 0) - (small[name] ?? 0)) / 40);
      straceRows.push(`| chain | ${ingest ? 'on' : 'off'} | ${TRACED.map(perNode).join(' | ')} |`);
      console.log(straceRows.at(-1));
    }
    return `## Graph runs: cost per node beside one durable write per transition

Chain graphs (n1 -> n2 -> ...) and fan-out graphs (n1, then n2..nN all depending on n1) run through
\`runGraph\` with the replay agent (concurrency 2, the default), each node's document carrying one or two
\`file=\` blocks, ingest off and on (durability fsync). The floor, timed in the same process between the runs:
two fsynced O_APPEND writes of a ~200 B line per node (its running and completed transitions) and, ingest on,
one durable file write (temp + fsync + rename) per file the node writes. Each figure is the median of three
rounds, each round running the 50- and the 200-node graph, each beside its floor; t(200)/t(50) is the median
of the ratios within a round. CPU is the process's (every thread, \`process.cpuUsage\`): the disk here is
shared with other work, so wall times of fsync-bound runs swing, while CPU time shows how the work per node
grows. Targets (issue 14): within 3x the floor, t(200)/t(50) at most 4.4 (linear is 4).

| shape | nodes | ingest | seconds | ms per node | CPU ms per node | floor ms per node | graph / floor |
|---|---:|---|---:|---:|---:|---:|---:|
${rows.join('\n')}

| shape | ingest | t(200) / t(50) | CPU(200) / CPU(50) |
|---|---|---:|---:|
${growth.join('\n')}

state.json rewritten alone (temp + fsync + rename + folder fsync through the confined writer, a completed
run's state with ingest summaries; median of 20) beside one fsynced append of a ~200 B line (median of 40):

| nodes in state.json | rewrite ms | fsynced append ms | rewrite / append |
|---:|---:|---:|---:|
${stateRows.join('\n')}

Syscalls per node (\`strace -c -f\` of a child running a 50-node chain minus a 10-node chain, divided by 40, so
module loading and the run's fixed cost drop out):

| shape | ingest | ${TRACED.join(' | ')} |
|---|---|${TRACED.map(() => '---:').join('|')}|
${straceRows.length > 0 ? straceRows.join('\n') : '| (strace not available) | | | | | | |'}

${BEFORE_AND_WHERE}`;
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--one') {
  const shape = process.argv[3] === 'fanout' ? 'fanout' : 'chain';
  const root = await mkdtemp(path.join(tmpdir(), 'ai-bench-graph-one-'));
  try {
    const time = await timeGraph(root, shape, Number(process.argv[4] ?? '50'), process.argv[5] === 'on');
    console.log(JSON.stringify(time));
  } finally {
    await rm(root, { recursive: true, force: true });
  }
} else if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(await graphRunsSection());
}
