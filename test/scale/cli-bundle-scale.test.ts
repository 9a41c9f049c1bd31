import { createHash } from 'node:crypto';
import { readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { bundleRun } from '../../src/artifacts/bundle/bundle-run.js';
import { openArtifactRecorder } from '../../src/artifacts/record/record-artifacts.js';
import { parseNodeId, parseRunId } from '../../src/project/index.js';
import { writeLargeBundle } from '../helpers/large-bundle.js';
import { readTarEntries } from '../helpers/raw-tar.js';
import { runProgram, spawnCli } from '../helpers/run-cli.js';
import { tempProject } from '../helpers/temp-project.js';
import { writeWideRun } from '../helpers/wide-run.js';

// The bundle and import tests at a size too slow for `npm test` (moved from test/e2e/cli-bundle.test.ts; the
// scale run, `npm run stress`, runs them): 10,000 objects through the built CLI, and the peak memory of imports
// of 195 MiB and of one 200 MiB file in a child process.

const MIB = 1024 * 1024;

describe('artifact-ingest bundle at scale', () => {
  it('bundles a run of 10,000 objects through the built CLI: exit 0 only with the whole file on disk', async () => {
    // The archive backs up in node-tar's Pack long before 10,000 entries: a writer that ignores it exits 0 with no file.
    const source = await tempProject();
    const records = await writeWideRun(source, 'run-wide', 10_000);
    const out = await tempProject();
    const bundled = await spawnCli(
      ['bundle', 'run-wide', '-o', 'wide.tar.gz', '--project', source, '--json'],
      {
        cwd: out,
      },
    );
    expect(bundled.stderr).toBe('');
    expect(bundled.code).toBe(0);
    const file = path.join(out, 'wide.tar.gz');
    expect(JSON.parse(bundled.stdout)).toMatchObject({
      runId: 'run-wide',
      files: 1,
      objects: records.length,
    });
    const objects = (await readTarEntries(file)).filter((entry) => entry.path.startsWith('.agent/objects/'));
    expect(objects.map((entry) => `sha256:${entry.path.split('/').slice(-2).join('')}`)).toEqual(
      records.map((record) => record.contentHash).sort(),
    );
    for (const entry of objects) {
      const hash = createHash('sha256')
        .update(entry.body as Uint8Array)
        .digest('hex');
      expect(entry.path.endsWith(`${hash.slice(0, 2)}/${hash.slice(2)}`)).toBe(true);
    }
  }, 300_000);
});

const DIST_INDEX = fileURLToPath(new URL('../../dist/index.js', import.meta.url));

/** Imports `file` into `target` in a child with a `heapMiB` heap; returns its summary and peak RSS in bytes. */
function importInChild(file: string, target: string, heapMiB: number, options: object = {}) {
  const script = `const { importBundle } = await import(${JSON.stringify(DIST_INDEX)});
const summary = await importBundle(${JSON.stringify(target)}, ${JSON.stringify(file)}, ${JSON.stringify(options)});
process.stdout.write(JSON.stringify({ summary, maxRssBytes: process.resourceUsage().maxRSS * 1024 }));`;
  return runProgram(process.execPath, [
    `--max-old-space-size=${String(heapMiB)}`,
    '--input-type=module',
    '-e',
    script,
  ]);
}

describe('import memory', () => {
  it('imports a 195 MiB run in a child with a 128 MiB heap, one entry in memory at a time', async () => {
    const source = await tempProject();
    const run = parseRunId('run-big');
    const recorder = await openArtifactRecorder(source, { durability: 'none' });
    try {
      for (let index = 0; index < 13; index += 1) {
        // 15 MiB of one letter each: under the 16 MiB object limit, quick to gzip, and without newlines (the
        // recorder's line count of a 15 MiB all-newline document is itself slow, a separate issue).
        const bytes = Buffer.alloc(15 * MIB, 0x41 + index);
        await recorder.recordVersions([
          {
            runId: run,
            taskId: parseNodeId(`n${String(index)}`),
            agentId: 'writer',
            kind: 'message',
            path: `docs/n${String(index)}.md`,
            bytes,
            source: 'runtime',
          },
        ]);
      }
    } finally {
      await recorder.close();
    }
    const file = path.join(await tempProject(), 'big.tar.gz');
    await bundleRun(source, run, file);
    const target = await tempProject();
    const { code, stdout, stderr } = await importInChild(file, target, 128);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const { summary, maxRssBytes } = JSON.parse(stdout) as {
      summary: Record<string, unknown>;
      maxRssBytes: number;
    };
    expect(summary).toEqual({ runId: run, files: 1, objects: 13, objectsStored: 13, alreadyImported: false });
    const stored = await readdir(path.join(target, '.agent', 'objects', 'sha256'), { recursive: true });
    let storedBytes = 0;
    for (const entry of stored) {
      const info = await stat(path.join(target, '.agent', 'objects', 'sha256', entry));
      if (info.isFile()) storedBytes += info.size;
    }
    expect(storedBytes).toBe(13 * 15 * MIB);
    // Loaded code alone is ~72 MiB: holding the 195 MiB of content whole would put the peak past 267 MiB.
    console.log(`import of ${String(13 * 15)} MiB: peak RSS ${(maxRssBytes / MIB).toFixed(1)} MiB`);
    expect(maxRssBytes).toBeLessThan(190 * MIB);
  }, 60_000);

  it('streams a 200 MiB run file to disk: peak RSS within 64 MiB of a tiny bundle', async () => {
    const run = 'run-one-big-file';
    const folder = await tempProject();
    const sizes = { tiny: 1024, large: 200 * MIB };
    const peaks: Record<string, number> = {};
    try {
      for (const [name, bytes] of Object.entries(sizes)) {
        const file = path.join(folder, `${name}.tar.gz`);
        await writeLargeBundle(file, run, bytes);
        const target = await tempProject();
        const result = await importInChild(file, target, 512, { maxFileBytes: 256 * MIB });
        expect(result.stderr).toBe('');
        expect(result.code).toBe(0);
        const { maxRssBytes } = JSON.parse(result.stdout) as { maxRssBytes: number };
        peaks[name] = maxRssBytes;
        expect((await stat(path.join(target, '.agent', 'runs', run, 'events.jsonl'))).size).toBe(bytes);
        await rm(target, { recursive: true, force: true });
        await rm(file, { force: true });
      }
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
    const tiny = peaks['tiny'] ?? 0;
    const large = peaks['large'] ?? 0;
    console.log(
      `import of one run file: peak RSS ${(tiny / MIB).toFixed(1)} MiB (1 KiB) vs ${(large / MIB).toFixed(1)} MiB (200 MiB)`,
    );
    // Holding the entry (as a kept buffer did) would add 200 MiB; streaming adds a few chunks.
    expect(large - tiny).toBeLessThan(64 * MIB);
  }, 180_000);
});
