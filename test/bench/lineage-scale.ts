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
import { benchRunId, generate } from './artifacts-scale.js';

const ROUNDS = 5;

/** The same table measured on 2026-11-23 before issue 14 (every query read every run's records); kept as is. */
const BEFORE_ISSUE_14 = `| operation | 10 runs: ms (x baseline) | 100 runs: ms (x baseline) | 1000 runs: ms (x baseline) | growth per 10x runs |
|---|---:|---:|---:|---:|
| \`checkout --step 1 --run <first>\` (vs fs.cp of its files) | 33.2 (2.45x) | 188 (21.4x) | 1637 (24.1x) | 5.66, 8.72 |
| \`checkout --step 3 --run <middle>\` (vs fs.cp of its files) | 560 (1.23x) | 662 (1.36x) | 2449 (2.62x) | 1.18, 3.70 |
| \`verify <middle>\` (vs reading its artifacts.jsonl) | 173 (379x) | 363 (442x) | 1279 (2747x) | 2.10, 3.53 |
| \`log workspace/n0/src/file00.ts\` (vs reading the middle run's artifacts.jsonl) | 0.51 (1.49x) | 0.96 (1.80x) | 1.06 (4.33x) | 1.89, 1.11 |
| \`replay <middle>\` (vs reading its artifacts.jsonl) | 6.97 (19.6x) | 4.21 (7.68x) | 3.36 (10.2x) | 0.60, 0.80 |
| \`replay <middle> --backward\` (vs reading its artifacts.jsonl) | 49.4 (96.6x) | 374 (774x) | 1162 (3033x) | 7.57, 3.11 |
| \`bundle <middle>\` (vs reading its artifacts.jsonl) | 92.4 (164x) | 129 (186x) | 163 (247x) | 1.40, 1.27 |`;
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
  const first = benchRunId(0);
  const middle = benchRunId(Math.floor(runs / 2));
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

\`checkout --step 3\` of the middle run rebuilds all 400 workspace paths at 100 and 1,000 runs but fewer at 10 (the
answer grows up to 100 runs), and \`replay --backward\` at 10 runs diffs versions whose content did not change
(each file holds one of 6 contents, the first one for the first 10 runs): there the answer's work grows.
\`checkout\` reads one heads file and the journal segments after it up to its time (.agent/index/history/),
\`verify RUN\`, \`replay --backward\` and the report the index files of the run's paths; \`bundle\` and \`log\`
did not change. \`verify RUN\` looks for stale temp files where the run writes (\`workspace/\`, its run and
contract folders, its objects' folders), not in every run folder and object folder of the project.

### Before issue 14 (2026-11-23)

The same table measured on the code before the run indexes, when \`checkout\`, \`verify RUN\` and
\`replay --backward\` read every run's records (kept for the comparison; \`npm run bench\` no longer rewrites it).

${BEFORE_ISSUE_14}
`;
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const scales = (process.argv[2] ?? '10,100,1000').split(',').map(Number);
  console.log(await lineageScaleSection(scales));
}
