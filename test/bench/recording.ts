/**
 * The recording part of `npm run bench`: records per second through the real recorder (durability fsync, what
 * runs use, and none) on a generated project with 10 and 1,000 runs of history, beside a bare append of the same
 * lines (one open + write + close per line, without and with fsync) measured in the same process, and the
 * syscalls per record counted with strace in a child process. Run alone with `npx tsx test/bench/recording.ts`
 * (`[histories ...]`, default 10 1000; prints the section; `npm run bench` writes it into docs/benchmarks.md). The child mode
 * `--record <projectDir> <from> <count>` records generated runs with durability fsync and exits.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  artifactIdOf,
  contentHashOf,
  countLineChanges,
  openArtifactRecorder,
  tracePathOf,
} from '../../src/artifacts/index.js';
import type { ArtifactRecord } from '../../src/artifacts/index.js';
import { parseNodeId, parseRunId } from '../../src/project/index.js';
import {
  bareAppend,
  benchClock,
  benchRunId,
  generatedBatch,
  NODES,
  recordGeneratedRuns,
  traceOf,
} from './artifacts-scale.js';

/** Runs recorded per timed sample (50 records each). */
const RUNS_PER_SAMPLE = 4;
/** Samples per contender, interleaved: recorder fsync, bare fsync, recorder none, bare none, and again. */
const ROUNDS = 3;
/** Runs the strace child records (its syscalls less those of a child that records none, per record). */
const STRACE_RUNS = 2;
const SYSCALLS = ['fsync', 'fdatasync', 'openat', 'rename', 'write'] as const;

const fmt = (value: number): string =>
  value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2);

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/**
 * Writes `runs` generated runs of history straight to disk (records, path index, objects), as the recorder
 * would with a clock 1 s per record apart, without timing anything: at 1,000 runs, recording them through the
 * recorder of before issue 14 took minutes, and the history is the setting, not the measure.
 */
export async function seedHistory(projectDir: string, runs: number, now: () => Date): Promise<void> {
  const decoder = new TextDecoder();
  const latest = new Map<string, { readonly artifactId: string; readonly text: string }>();
  const files = new Map<string, string[]>();
  const objects = new Map<string, Uint8Array>();
  const append = (file: string, record: ArtifactRecord): void => {
    const lines = files.get(file) ?? [];
    lines.push(`${JSON.stringify(record)}\n`);
    files.set(file, lines);
  };
  for (let run = 0; run < runs; run++) {
    const runId = parseRunId(benchRunId(run));
    for (let node = 0; node < NODES; node++) {
      for (const input of generatedBatch(run, node)) {
        const contentHash = contentHashOf(input.bytes);
        objects.set(contentHash, input.bytes);
        const text = decoder.decode(input.bytes);
        const previous = latest.get(input.path);
        const lines = countLineChanges(previous?.text ?? null, text);
        const artifactId = artifactIdOf({ runId, taskId: input.taskId, path: input.path, contentHash });
        const record: ArtifactRecord = {
          artifactId,
          runId,
          taskId: input.taskId,
          agentId: input.agentId,
          type: input.kind === 'message' ? 'message' : 'file',
          path: input.path,
          contentHash,
          createdAt: now().toISOString(),
          metadata: {
            language: input.language ?? '',
            bytes: input.bytes.byteLength,
            linesAdded: lines.linesAdded,
            linesRemoved: lines.linesRemoved,
            ...(previous === undefined ? {} : { previous: previous.artifactId }),
            source: input.source,
          },
        };
        latest.set(input.path, { artifactId, text });
        append(`.agent/runs/${runId}/artifacts.jsonl`, record);
        append(`.agent/index/paths/${pathIndexName(input.path)}`, record);
      }
      const taskId = parseNodeId(`n${node}`);
      const trace = new TextEncoder().encode(`${JSON.stringify(traceOf(runId, node, now()), null, 2)}\n`);
      const contentHash = contentHashOf(trace);
      objects.set(contentHash, trace);
      const path = tracePathOf(runId, taskId);
      append(`.agent/runs/${runId}/artifacts.jsonl`, {
        artifactId: artifactIdOf({ runId, taskId, path, contentHash }),
        runId,
        taskId,
        agentId: 'builder',
        type: 'trace',
        path,
        contentHash,
        createdAt: now().toISOString(),
        metadata: {
          language: 'json',
          bytes: trace.byteLength,
          linesAdded: 0,
          linesRemoved: 0,
          source: 'runtime',
        },
      });
    }
  }
  for (const [file, lines] of files) {
    await mkdir(path.dirname(path.join(projectDir, file)), { recursive: true });
    await writeFile(path.join(projectDir, file), lines.join(''));
  }
  for (const [hash, bytes] of objects) {
    const hex = hash.slice('sha256:'.length);
    const file = path.join(projectDir, '.agent', 'objects', 'sha256', hex.slice(0, 2), hex.slice(2));
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, bytes, { mode: 0o444 });
  }
}

/** The index file name of `path` below .agent/index/paths: `<2 hex>/<62 hex>.jsonl` of its sha256. */
function pathIndexName(recordPath: string): string {
  const hex = createHash('sha256').update(recordPath).digest('hex');
  return `${hex.slice(0, 2)}/${hex.slice(2)}.jsonl`;
}

interface Rates {
  readonly fsync: number;
  readonly none: number;
  readonly bareFsync: number;
  readonly bareNone: number;
}

/** Records/s of the four contenders on a project with `history` runs, interleaved over ROUNDS rounds. */
async function measureRates(root: string, projectDir: string, history: number): Promise<Rates> {
  const now = benchClock();
  await seedHistory(projectDir, history, now);
  let next = history;
  const samples = {
    fsync: [] as number[],
    none: [] as number[],
    bareFsync: [] as number[],
    bareNone: [] as number[],
  };
  const recordSample = async (durability: 'fsync' | 'none'): Promise<ArtifactRecord[]> => {
    const recorder = await openArtifactRecorder(projectDir, { now, durability });
    const t0 = performance.now();
    try {
      const records = await recordGeneratedRuns(recorder, now, next, RUNS_PER_SAMPLE);
      samples[durability].push(records.length / ((performance.now() - t0) / 1000));
      return records;
    } finally {
      next += RUNS_PER_SAMPLE;
      await recorder.close();
    }
  };
  for (let round = 0; round < ROUNDS; round++) {
    const durable = await recordSample('fsync');
    const bareFsync = await bareAppend(await mkdtemp(path.join(root, 'bare-')), durable, true);
    samples.bareFsync.push(durable.length / bareFsync);
    const fast = await recordSample('none');
    const bareNone = await bareAppend(await mkdtemp(path.join(root, 'bare-')), fast, false);
    samples.bareNone.push(fast.length / bareNone);
  }
  return {
    fsync: median(samples.fsync),
    none: median(samples.none),
    bareFsync: median(samples.bareFsync),
    bareNone: median(samples.bareNone),
  };
}

/** Parses the summary table of `strace -c`: syscall name to number of calls. */
function parseStraceSummary(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const line of text.split('\n')) {
    const match = /^\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(?:\d+\s+)?(\w+)\s*$/.exec(line);
    if (match?.[1] !== undefined && match[2] !== undefined && match[2] !== 'total') {
      counts.set(match[2], Number(match[1]));
    }
  }
  return counts;
}

/** Syscalls per record of the fsync recorder on `projectDir` (which has `history` runs), or undefined without strace. */
async function syscallsPerRecord(
  projectDir: string,
  history: number,
): Promise<Map<string, number> | undefined> {
  const counted = async (from: number, runs: number): Promise<Map<string, number> | undefined> => {
    const out = path.join(projectDir, '..', `strace-${String(from)}-${String(runs)}.txt`);
    const tsx = createRequire(import.meta.url).resolve('tsx');
    const child = spawnSync(
      'strace',
      [
        ...['-f', '-c', '-o', out, '-e', `trace=${SYSCALLS.join(',')}`],
        ...[process.execPath, '--import', tsx, fileURLToPath(import.meta.url)],
        ...['--record', projectDir, String(from), String(runs)],
      ],
      { encoding: 'utf8' },
    );
    if (child.error !== undefined || child.status !== 0) return undefined;
    return parseStraceSummary(await readFile(out, 'utf8'));
  };
  const idle = await counted(history + 1000, 0);
  const busy = await counted(history + 1000, STRACE_RUNS);
  if (idle === undefined || busy === undefined) return undefined;
  const records = STRACE_RUNS * 5 * 10;
  return new Map(SYSCALLS.map((name) => [name, ((busy.get(name) ?? 0) - (idle.get(name) ?? 0)) / records]));
}

/** Measures recording and returns the markdown section for docs/benchmarks.md. */
export async function recordingSection(histories: readonly number[] = [10, 1000]): Promise<string> {
  const root = await mkdtemp(path.join(tmpdir(), 'ai-bench-recording-'));
  try {
    const rows: string[] = [];
    const syscallRows: string[] = [];
    for (const history of histories) {
      console.log(`recording: ${String(history)} runs of history ...`);
      const projectDir = path.join(root, `history-${String(history)}`);
      const rates = await measureRates(root, projectDir, history);
      rows.push(
        `| ${String(history)} | ${fmt(rates.fsync)} | ${fmt(rates.bareFsync)} | ${fmt(rates.fsync / rates.bareFsync)} | ${fmt(rates.none)} | ${fmt(rates.bareNone)} | ${fmt(rates.none / rates.bareNone)} |`,
      );
      const perRecord = await syscallsPerRecord(projectDir, history);
      if (perRecord !== undefined) {
        syscallRows.push(
          `| ${String(history)} | ${SYSCALLS.map((name) => fmt(perRecord.get(name) ?? 0)).join(' | ')} |`,
        );
      }
    }
    const syscalls =
      syscallRows.length === 0
        ? 'strace was not available: no syscall counts.'
        : `Syscalls per record of the fsync recorder (\`strace -c -f\` of a child recording ${String(STRACE_RUNS * 50)} records, less a
child recording none):

| runs of history | ${SYSCALLS.join(' | ')} |
|---|${SYSCALLS.map(() => '---:').join('|')}|
${syscallRows.join('\n')}`;
    return `## Recording: records per second

The generated project of "Artifacts at scale" (each node records one batch of a message and 8 file versions,
then a trace: 50 records per run), first ${histories.join(' and ')} runs of history written straight to disk (as the recorder writes them),
then ${String(RUNS_PER_SAMPLE)} more runs per sample through the real recorder with durability \`fsync\` (the
default, what runs use) and \`none\`, each beside the same record lines appended bare (one open(O_APPEND) +
write + close per line, with and without fsync). Median of ${String(ROUNDS)} interleaved samples.

| runs of history | recorder fsync, records/s | bare append + fsync | ratio | recorder none | bare append | ratio |
|---:|---:|---:|---:|---:|---:|---:|
${rows.join('\n')}

${syscalls}

\`write\` counts include libuv's wake-ups of the event loop (an eventfd write per finished threadpool call), so
they follow the number of asynchronous file calls: since D81 only the fsyncs go through the pool, every other
file call is made on the calling thread. Each batch of 9 versions costs, under fsync: its new objects (file
fsyncs up to 4 at once, then each folder once), one append and fsync of the run's artifacts.jsonl, then one
append and fsync per path index file (up to 8 at once); each trace its object and one append. The history
(10 runs: most contents new; 1,000 runs: every file content already stored) decides how many objects are new:
a new object is a temp file created (read-only) and renamed, two metadata changes that wait for the
filesystem's journal, plus its fsync and its folder's, which is why 10 runs of history record slower than 1,000.

### Before issue 14 (2026-11-23)

The same bench on the one-record-at-a-time recorder of main at eb09937 (each record: an object put that read an
existing object back, the path's whole index file read, two appends each opening the project and walking
\`.agent/...\`, each fsynced, every file call through libuv's pool), kept for the comparison (\`npm run bench\`
no longer rewrites it). Measured back to back with this build on a quiet machine, eb09937 first, twice:

| build | runs of history | recorder fsync, records/s | bare append + fsync | ratio | recorder none | bare append | ratio |
|---|---:|---:|---:|---:|---:|---:|---:|
| eb09937 | 10 | 111 | 2004 | 0.06 | 159 | 4796 | 0.03 |
| this build | 10 | 392 | 2092 | 0.19 | 781 | 4416 | 0.18 |
| eb09937 | 1000 | 157 | 2224 | 0.07 | 174 | 5131 | 0.03 |
| this build | 1000 | 921 | 2304 | 0.40 | 1374 | 3784 | 0.36 |
| eb09937 | 10 | 159 | 2319 | 0.07 | 168 | 5100 | 0.03 |
| this build | 10 | 576 | 2011 | 0.29 | 761 | 4724 | 0.16 |
| eb09937 | 1000 | 144 | 2278 | 0.06 | 153 | 4238 | 0.04 |
| this build | 1000 | 780 | 2276 | 0.34 | 1367 | 4415 | 0.31 |

Records/s of this build over eb09937's, pair by pair: 3.5-3.6x (fsync, 10 runs of history), 5.4-5.9x (fsync,
1,000 runs), 4.5-4.9x (none, 10 runs), 7.9-8.9x (none, 1,000 runs); the ratio to a bare append rose 3.2-4.1x,
5.7x, 5.3-6x and 7.8-12x. With 10 runs of history most contents are new: each new object is a temp file with
its own fsync, a rename, a chmod and a folder fsync, work eb09937 did too. The batched recorder alone (D79,
before D81 and D82) had reached 1.5-3.4x.

eb09937's syscalls per record (fsync recorder):

| runs of history | fsync | fdatasync | openat | rename | write |
|---|---:|---:|---:|---:|---:|
| 10 | 3.72 | 0.00 | 16.1 | 0.90 | 60.0 |
| 1000 | 2.12 | 0.00 | 16.1 | 0.10 | 59.1 |
`;
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

/** The strace child: records `count` generated runs from run `from` into `projectDir` with durability fsync. */
async function recordInChild(projectDir: string, from: number, count: number): Promise<void> {
  // The real clock: later than every generated record, as a new run's records are.
  const now = (): Date => new Date();
  const recorder = await openArtifactRecorder(projectDir, { now, durability: 'fsync' });
  try {
    await recordGeneratedRuns(recorder, now, from, count);
  } finally {
    await recorder.close();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const at = process.argv.indexOf('--record');
  if (at !== -1) {
    const [projectDir, from, count] = process.argv.slice(at + 1);
    await recordInChild(projectDir ?? '', Number(from), Number(count));
  } else {
    const histories = process.argv.slice(2).map(Number);
    console.log(await recordingSection(histories.length === 0 ? undefined : histories));
  }
}
