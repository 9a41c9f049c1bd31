/**
 * The bundle-padding part of `npm run bench`: `importBundle` of a recorded run's bundle, and of the same bundle with
 * zeros after its tar end-of-archive marker inside the gzip stream (gzip shrinks them about 1000:1), each into a
 * fresh project, interleaved, median of ROUNDS, as a ratio to the unpadded import measured in the same run.
 * Before issue 23 a 17 KB padded file imported for 16 s and a 66 KB one for 262 s (node-tar's Parser copies its
 * whole buffer on every write after the marker). Run alone with `npx tsx test/bench/bundle-padding.ts`.
 */
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleRun, BundleError, importBundle } from '../../src/artifacts/index.js';
import { padBundle } from '../helpers/padded-bundle.js';
import { recordRun } from '../helpers/recorded-run.js';

const ROUNDS = 5;
const MIB = 1024 * 1024;
const RUN = 'run-padding';

interface PaddingCase {
  readonly name: string;
  /** Zero bytes after the end-of-archive marker. */
  readonly zeros: number;
}

const CASES: readonly PaddingCase[] = [
  { name: 'unpadded', zeros: 0 },
  { name: 'padded to a 10 KiB tar record', zeros: 9 * 1024 },
  { name: '1 MiB of zeros (the most accepted)', zeros: MIB },
  { name: '16 MiB of zeros', zeros: 16 * MIB },
  { name: '64 MiB of zeros', zeros: 64 * MIB },
  { name: '2 GiB of zeros', zeros: 2048 * MIB },
];

const fmt = (value: number): string => (value >= 10 ? value.toFixed(1) : value.toFixed(2));

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/** Imports `file` into a fresh project; returns the seconds it took and whether it was imported or refused. */
async function timeImport(root: string, file: string): Promise<{ seconds: number; outcome: string }> {
  const target = await mkdtemp(path.join(root, 'target-'));
  const t0 = performance.now();
  let outcome = 'imported';
  try {
    await importBundle(target, file);
  } catch (error) {
    if (!(error instanceof BundleError)) throw error;
    outcome = `refused (${error.code})`;
  }
  const seconds = (performance.now() - t0) / 1000;
  await rm(target, { recursive: true, force: true });
  return { seconds, outcome };
}

/** Measures every case and returns the markdown section (also printed row by row). */
export async function bundlePaddingSection(): Promise<string> {
  const root = await mkdtemp(path.join(tmpdir(), 'bench-padding-'));
  try {
    const source = await mkdtemp(path.join(root, 'source-'));
    await recordRun(source, RUN);
    const bundle = path.join(root, 'run.tar.gz');
    await bundleRun(source, RUN, bundle);
    const files = await Promise.all(
      CASES.map(async (padding, index) => {
        const file = path.join(root, `case-${String(index)}.tar.gz`);
        await padBundle(bundle, file, padding.zeros);
        return { file, bytes: (await stat(file)).size };
      }),
    );
    const times: number[][] = CASES.map(() => []);
    const outcomes: string[] = CASES.map(() => '');
    for (let round = 0; round < ROUNDS + 1; round += 1) {
      for (const [index, { file }] of files.entries()) {
        const { seconds, outcome } = await timeImport(root, file);
        // Round 0 warms up (module loads, JIT) and is not counted.
        if (round > 0) times[index]?.push(seconds);
        outcomes[index] = outcome;
      }
    }
    const base = median(times[0] ?? []);
    const rows = CASES.map((padding, index) => {
      const seconds = median(times[index] ?? []);
      const row = `| ${padding.name} | ${String(files[index]?.bytes ?? 0)} | ${outcomes[index] ?? ''} | ${fmt(seconds * 1000)} | ${fmt(seconds / base)} |`;
      console.log(row);
      return row;
    });
    return `## Bundle padding: import time against the unpadded bundle

\`importBundle\` of a recorded run's bundle (8 objects) and of the same bundle with zeros after its tar
end-of-archive marker, inside the gzip stream, each into a fresh project, interleaved, median of ${String(ROUNDS)}
rounds after one warm-up round. Import stops at the marker and reads at most 1 MiB of zeros after it; past that
it refuses the bundle (\`not_a_bundle\`), so no padding costs more than the bundle's own content. Before issue 23
a 17 KB padded file took 16 s and a 66 KB one 262 s.

| bundle | file bytes | outcome | ms | ratio to unpadded |
|---|---:|---|---:|---:|
${rows.join('\n')}
`;
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await bundlePaddingSection();
