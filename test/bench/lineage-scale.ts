/**
 * The lineage part of `npm run bench`: generated projects of 10, 100 and 1,000 runs (artifacts-scale.ts's
 * generator), and in each `checkout`, `verify RUN`, `log`, `replay` (forward and backward) and `bundle` through
 * the library functions the CLI calls, beside a baseline measured in the same process (copying the checked-out
 * files with fs.cp for checkout, reading the run's own artifacts.jsonl for the others). Run alone with
 * `npx tsx test/bench/lineage-scale.ts [runs,runs,...]` (prints the section).
 */
import { cp, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleRun } from '../../src/artifacts/index.js';
import { checkoutWorkspace } from '../../src/artifacts/lineage/checkout-workspace.js';
import { logPath } from '../../src/artifacts/lineage/log-path.js';
import { replayRun } from '../../src/artifacts/lineage/replay-run.js';
import { verifyArtifacts } from '../../src/artifacts/lineage/verify-artifacts.js';
import { generate, runIdOf } from './artifacts-scale.js';

const ROUNDS = 5;
const LOG_PATH = 'workspace/n0/src/file00.ts';

const fmt = (value: number): string =>
  value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2);

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

async function ms(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

/** One operation's median ms and its baseline's, measured interleaved in the same rounds. */
interface Measured {
  readonly ms: number;
  readonly baselineMs: number;
}

type Operation = 'checkout1' | 'checkout3' | 'verify' | 'log' | 'replay' | 'backward' | 'bundle';

const LABELS: Record<Operation, string> = {
  checkout1: '`checkout --step 1 --run <first>` (vs fs.cp of its files)',
  checkout3: '`checkout --step 3 --run <middle>` (vs fs.cp of its files)',
  verify: '`verify <middle>` (vs reading its artifacts.jsonl)',
  log: `\`log ${LOG_PATH}\` (vs reading the middle run's artifacts.jsonl)`,
  replay: '`replay <middle>` (vs reading its artifacts.jsonl)',
  backward: '`replay <middle> --backward` (vs reading its artifacts.jsonl)',
  bundle: '`bundle <middle>` (vs reading its artifacts.jsonl)',
};

/** Measures every operation on a generated project of `runs` runs. */
async function measureProject(root: string, runs: number): Promise<Record<Operation, Measured>> {
  const projectDir = path.join(root, `project-${runs}`);
  console.log(`lineage: generating ${runs} runs ...`);
  await generate(projectDir, runs);
  const first = runIdOf(0);
  const middle = runIdOf(Math.floor(runs / 2));
  const ownRecords = path.join(projectDir, '.agent', 'runs', middle, 'artifacts.jsonl');
  const readOwn = async (): Promise<void> => {
    const text = await readFile(ownRecords, 'utf8');
    for (const line of text.split('\n')) if (line !== '') JSON.parse(line);
  };
  const times = new Map<Operation, { ours: number[]; baseline: number[] }>();
  const add = (op: Operation, ours: number, baseline: number): void => {
    const entry = times.get(op) ?? { ours: [], baseline: [] };
    entry.ours.push(ours);
    entry.baseline.push(baseline);
    times.set(op, entry);
  };
  let out = 0;
  const fresh = (): string => path.join(root, `out-${runs}-${String(out++)}`);
  // Round -1 warms the modules and the page cache; it is not counted.
  for (let round = -1; round < ROUNDS; round++) {
    const record = round >= 0 ? add : (): void => undefined;
    for (const [op, runId, step] of [
      ['checkout1', first, 1],
      ['checkout3', middle, 3],
    ] as const) {
      const to = fresh();
      const ours = await ms(() => checkoutWorkspace(projectDir, { runId, step, to }));
      record(op, ours, await ms(() => cp(to, fresh(), { recursive: true })));
    }
    record('verify', await ms(() => verifyArtifacts(projectDir, { runId: middle })), await ms(readOwn));
    record('log', await ms(() => logPath(projectDir, LOG_PATH)), await ms(readOwn));
    record('replay', await ms(() => replayRun(projectDir, middle)), await ms(readOwn));
    record('backward', await ms(() => replayRun(projectDir, middle, { backward: true })), await ms(readOwn));
    const bundleDir = fresh();
    await mkdir(bundleDir);
    const bundle = path.join(bundleDir, 'run.tgz');
    record('bundle', await ms(() => bundleRun(projectDir, middle, bundle)), await ms(readOwn));
  }
  const result = {} as Record<Operation, Measured>;
  for (const [op, entry] of times)
    result[op] = { ms: median(entry.ours), baselineMs: median(entry.baseline) };
  await rm(projectDir, { recursive: true, force: true });
  return result;
}

/** Measures lineage queries at growing history and returns the markdown section for docs/benchmarks.md. */
export async function lineageScaleSection(scales: readonly number[] = [10, 100, 1000]): Promise<string> {
  const root = await mkdtemp(path.join(tmpdir(), 'ai-bench-lineage-'));
  try {
    const measured: Record<Operation, Measured>[] = [];
    for (const runs of scales) measured.push(await measureProject(root, runs));
    const header = `| operation | ${scales.map((runs) => `${runs} runs: ms (x baseline)`).join(' | ')} | growth per 10x runs |`;
    const rule = `|---|${scales.map(() => '---:').join('|')}|---:|`;
    const rows = (Object.keys(LABELS) as Operation[]).map((op) => {
      const cells = measured.map(
        (byOp) => `${fmt(byOp[op].ms)} (${fmt(byOp[op].ms / byOp[op].baselineMs)}x)`,
      );
      const growth = measured
        .slice(1)
        .map((byOp, i) => fmt(byOp[op].ms / (measured[i]?.[op].ms ?? Number.NaN)))
        .join(', ');
      return `| ${LABELS[op]} | ${cells.join(' | ')} | ${growth} |`;
    });
    return `## Lineage queries at scale

Generated projects of ${scales.join(', ')} runs (the generator of "Artifacts at scale": 5 nodes per run, each
recording 1 message, 8 file versions and 1 trace, over 400 workspace paths), then each query ${ROUNDS} times
through the library function the CLI calls, interleaved with its baseline (medians; a warm-up round not
counted). Growth is the time at 10x the runs over the time before (target: at most 2x, except where the answer
itself grows).

${header}
${rule}
${rows.join('\n')}
`;
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const scales = (process.argv[2] ?? '10,100,1000').split(',').map(Number);
  console.log(await lineageScaleSection(scales));
}
