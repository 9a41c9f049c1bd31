/**
 * The declared-versus-observed part of `npm run bench`: a generated project of FILES files, snapshotted cold (no
 * previous snapshot: every file hashed) and warm (nothing changed: nothing hashed), each beside baselines measured
 * in the same process, interleaved: a bare fast-glob walk with an lstat per file, and the same walk that also
 * reads and hashes every file. Run alone with `npx tsx test/bench/observe-snapshot.ts [files]`.
 */
import { createHash } from 'node:crypto';
import { lstat, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fg from 'fast-glob';
import { snapshotProject } from '../../src/workflow/index.js';
import type { ProjectSnapshot } from '../../src/workflow/index.js';

const FILES_PER_FOLDER = 100;
const ROUNDS = 5;

const fmt = (value: number): string =>
  value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2);

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/** FILES files of 200-1200 bytes in folders of 100, two levels deep, plus ignored folders the walk must skip. */
async function generate(projectDir: string, files: number): Promise<void> {
  for (let index = 0; index < files; index += 1) {
    const folder = Math.floor(index / FILES_PER_FOLDER);
    const dir = path.join(projectDir, 'src', `area${String(folder % 20)}`, `module${String(folder)}`);
    if (index % FILES_PER_FOLDER === 0) await mkdir(dir, { recursive: true });
    const body = `export const value${String(index)} = ${String(index)};\n`.repeat(5 + (index % 25));
    await writeFile(path.join(dir, `file${String(index)}.ts`), body);
  }
  await writeFile(path.join(projectDir, '.gitignore'), '# generated\ndist/\n*.log\n!keep.log\n/coverage\n');
  for (const ignored of ['.git/objects', 'node_modules/pkg', '.agent/runs/r', 'dist']) {
    await mkdir(path.join(projectDir, ignored), { recursive: true });
    for (let index = 0; index < 50; index += 1) {
      await writeFile(path.join(projectDir, ignored, `x${String(index)}`), 'ignored\n');
    }
  }
}

const WALK = { dot: true, followSymbolicLinks: false, onlyFiles: false, objectMode: true } as const;
const IGNORE = ['**/.git', '**/.git/**', '.agent', '.agent/**', '**/node_modules', '**/node_modules/**'];

/** The floor of a warm snapshot: the same walk and an lstat per file, 32 at a time, nothing else. */
async function walkAndStat(projectDir: string): Promise<number> {
  const entries = (await fg('**', { ...WALK, cwd: projectDir, ignore: IGNORE })).filter((entry) =>
    entry.dirent.isFile(),
  );
  let bytes = 0;
  await limited(entries.length, async (index) => {
    bytes += (await lstat(path.join(projectDir, entries[index]?.path ?? ''))).size;
  });
  return bytes;
}

/** The floor of a cold snapshot: the same walk, an lstat and a read + sha256 of every file. */
async function walkStatAndHash(projectDir: string): Promise<number> {
  const entries = (await fg('**', { ...WALK, cwd: projectDir, ignore: IGNORE })).filter((entry) =>
    entry.dirent.isFile(),
  );
  let bytes = 0;
  await limited(entries.length, async (index) => {
    const file = path.join(projectDir, entries[index]?.path ?? '');
    bytes += (await lstat(file)).size;
    createHash('sha256')
      .update(await readFile(file))
      .digest('hex');
  });
  return bytes;
}

async function limited(count: number, work: (index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) {
      const index = next;
      next += 1;
      await work(index);
    }
  };
  await Promise.all(Array.from({ length: 32 }, worker));
}

async function timedMs(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

/** Measures snapshots of a generated tree and returns the markdown section for docs/benchmarks.md. */
export async function observeSnapshotSection(files = 20_000): Promise<string> {
  const root = await mkdtemp(path.join(tmpdir(), 'ai-bench-observe-'));
  try {
    console.log(`observe: generating ${String(files)} files ...`);
    await generate(root, files);
    let previous: ProjectSnapshot = await snapshotProject(root);
    if (Object.keys(previous.files).length !== files + 1) throw new Error('snapshot missed files');
    const times = { cold: [] as number[], warm: [] as number[], walk: [] as number[], hash: [] as number[] };
    // Interleaved rounds, so all four share the page cache, heap and machine load.
    for (let round = 0; round < ROUNDS; round += 1) {
      times.walk.push(await timedMs(() => walkAndStat(root)));
      times.cold.push(await timedMs(() => snapshotProject(root)));
      times.hash.push(await timedMs(() => walkStatAndHash(root)));
      times.warm.push(
        await timedMs(async () => {
          previous = await snapshotProject(root, previous);
        }),
      );
    }
    const cold = median(times.cold);
    const warm = median(times.warm);
    const walk = median(times.walk);
    const hash = median(times.hash);
    const section = `## Declared versus observed: project snapshots

A generated project of ${String(files)} files (200-1200 B, folders of ${String(FILES_PER_FOLDER)}) plus 200 files
in \`.git\`, \`node_modules\`, \`.agent\` and a gitignored \`dist/\` that a snapshot leaves out. Median of ${String(ROUNDS)}
interleaved rounds; the files are in the page cache (as they are between two steps), so "cold" means "no
previous snapshot: every file read and hashed", not a cold disk.

| measure | ms per snapshot | baseline ms | ratio |
|---|---:|---:|---:|
| warm snapshot (nothing changed: walk, lstat, gitignore, no hashing) vs fast-glob walk + lstat | ${fmt(warm)} | ${fmt(walk)} | ${fmt(warm / walk)}x |
| cold snapshot (every file hashed) vs fast-glob walk + lstat + read + sha256 | ${fmt(cold)} | ${fmt(hash)} | ${fmt(cold / hash)}x |
| cold snapshot vs warm snapshot | ${fmt(cold)} | ${fmt(warm)} | ${fmt(cold / warm)}x |
`;
    return section;
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(await observeSnapshotSection(Number(process.argv[2] ?? '20000')));
}
