import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BundleError } from '../../../src/artifacts/bundle/bundle-error.js';
import { bundleRun } from '../../../src/artifacts/bundle/bundle-run.js';
import {
  DEFAULT_BUNDLE_LIMITS,
  MAX_TRAILING_BYTES,
  scanBundleArchive,
} from '../../../src/artifacts/bundle/scan-bundle-archive.js';
import type { ScannedFile } from '../../../src/artifacts/bundle/scan-types.js';
import { gzipSync } from 'node:zlib';
import { Pax } from 'tar';
import { padBundle } from '../../helpers/padded-bundle.js';
import { gzipTar, rawTar, readTarEntries } from '../../helpers/raw-tar.js';
import { recordRun } from '../../helpers/recorded-run.js';
import { tempProject } from '../../helpers/temp-project.js';
import { openConfinedRoot } from '../../../src/workspace/index.js';
import { readdir, rm } from 'node:fs/promises';

const RUN = 'run-scan';

async function bundled(): Promise<string> {
  const source = await tempProject();
  await recordRun(source, RUN);
  const file = path.join(await tempProject(), 'run.tar.gz');
  await bundleRun(source, RUN, file);
  return file;
}

describe('scanBundleArchive', () => {
  it('hands each file over in archive order with its sha256, keeping only the bytes asked for', async () => {
    const file = await bundled();
    const entries = await readTarEntries(file);
    const seen: ScannedFile[] = [];
    const scanned = await scanBundleArchive(file, DEFAULT_BUNDLE_LIMITS, {
      keep: (verdict) => verdict.kind === 'object',
      onFile: (scannedFile) => {
        seen.push(scannedFile);
      },
    });
    expect(scanned.manifest.runId).toBe(RUN);
    const files = entries.filter((entry) => entry.type === 'File' && entry.path !== '.agent/bundle.json');
    expect(seen.map((entry) => entry.verdict.path)).toEqual(files.map((entry) => entry.path));
    for (const [index, entry] of files.entries()) {
      const body = Buffer.from(entry.body ?? '');
      expect(seen[index]?.sha256).toBe(createHash('sha256').update(body).digest('hex'));
      expect(seen[index]?.size).toBe(body.length);
      expect(seen[index]?.bytes === undefined).toBe(seen[index]?.verdict.kind === 'runFile');
    }
  });

  it('reads no further until onFile settles: one file in flight at a time', async () => {
    const file = await bundled();
    let inFlight = 0;
    let most = 0;
    await scanBundleArchive(file, DEFAULT_BUNDLE_LIMITS, {
      keep: () => true,
      onFile: async () => {
        inFlight += 1;
        most = Math.max(most, inFlight);
        await new Promise((resolve) => setTimeout(resolve, 5));
        inFlight -= 1;
      },
    });
    expect(most).toBe(1);
  });

  it('streams each body to its consumer, in order, and calls onFile after the consumer settled', async () => {
    const file = await bundled();
    const entries = await readTarEntries(file);
    const streamed = new Map<string, Buffer>();
    const order: string[] = [];
    await scanBundleArchive(file, DEFAULT_BUNDLE_LIMITS, {
      keep: () => true,
      stream: (verdict) => async (body) => {
        const chunks: Buffer[] = [];
        for await (const chunk of body) chunks.push(chunk);
        await new Promise((resolve) => setTimeout(resolve, 2));
        streamed.set(verdict.path, Buffer.concat(chunks));
        order.push(`stream ${verdict.path}`);
      },
      onFile: ({ verdict, bytes }) => {
        expect(bytes).toBeUndefined();
        order.push(`file ${verdict.path}`);
      },
    });
    const files = entries.filter((entry) => entry.type === 'File' && entry.path !== '.agent/bundle.json');
    expect(order).toEqual(files.flatMap((entry) => [`stream ${entry.path}`, `file ${entry.path}`]));
    for (const entry of files) expect(streamed.get(entry.path)).toEqual(Buffer.from(entry.body ?? ''));
  });

  it('fails the body of an object that does not hash to its name, so its streamed copy is never kept', async () => {
    const file = await bundled();
    const entries = await readTarEntries(file);
    const tampered = entries.map((entry) =>
      entry.path.startsWith('.agent/objects/') && entry.type === 'File'
        ? { ...entry, body: 'tampered' }
        : entry,
    );
    await writeFile(file, gzipTar(tampered));
    const folder = await tempProject();
    const root = await openConfinedRoot(folder, { create: true });
    const error = await scanBundleArchive(file, DEFAULT_BUNDLE_LIMITS, {
      keep: () => false,
      stream: (verdict) => async (body) => {
        const outcome = await root.writeStream(verdict.path.replaceAll('/', '_'), body);
        if (outcome.status !== 'written') throw new Error(outcome.status);
      },
      onFile: () => undefined,
    }).catch((caught: unknown) => caught);
    await root.close();
    expect(error).toBeInstanceOf(BundleError);
    expect((error as BundleError).code).toBe('hash_mismatch');
    // Run files before the object were streamed whole; the object left neither a file nor a temp file.
    const left = await readdir(folder);
    expect(left.filter((name) => name.includes('objects') || name.endsWith('.tmp'))).toEqual([]);
    await rm(folder, { recursive: true, force: true });
  });

  it('stops at a refusal thrown by onFile and reports it', async () => {
    const file = await bundled();
    let calls = 0;
    const refused = new BundleError({ code: 'hash_mismatch', message: 'changed' });
    await expect(
      scanBundleArchive(file, DEFAULT_BUNDLE_LIMITS, {
        keep: () => false,
        onFile: () => {
          calls += 1;
          throw refused;
        },
      }),
    ).rejects.toBe(refused);
    expect(calls).toBe(1);
  });

  it('refuses the manifest itself over maxFileBytes, from its header', async () => {
    const file = await bundled();
    const big = path.join(path.dirname(file), 'big.tar.gz');
    await writeFile(big, gzipTar(await readTarEntries(file)));
    await expect(
      scanBundleArchive(
        big,
        { ...DEFAULT_BUNDLE_LIMITS, maxFileBytes: 16 },
        { keep: () => false, onFile: () => undefined },
      ),
    ).rejects.toMatchObject({ code: 'too_large', entry: '.agent/bundle.json' });
  });
});

/** The tar of a real bundle with its end-of-archive marker (the last 1024 bytes) cut off. */
async function tarWithoutEnd(file: string): Promise<Buffer> {
  const tar = rawTar(await readTarEntries(file));
  return tar.subarray(0, tar.length - 1024);
}

async function scanOutcome(file: string): Promise<string> {
  return scanBundleArchive(file, DEFAULT_BUNDLE_LIMITS, { keep: () => false, onFile: () => undefined }).then(
    () => 'accepted',
    (error: unknown) => (error instanceof BundleError ? `${error.code}: ${error.message}` : String(error)),
  );
}

describe("scanBundleArchive at the archive's end", () => {
  it.each([
    ['no padding', 0],
    ['padding to a 10 KiB tar record', 10 * 1024 - 1024],
    ['exactly MAX_TRAILING_BYTES of zeros', MAX_TRAILING_BYTES],
  ])('accepts %s after the end-of-archive marker', async (_name, zeros) => {
    const file = await bundled();
    const padded = path.join(path.dirname(file), 'padded.tar.gz');
    await padBundle(file, padded, zeros);
    expect(await scanOutcome(padded)).toBe('accepted');
  });

  it.each([
    [
      'one byte past MAX_TRAILING_BYTES of zeros',
      MAX_TRAILING_BYTES + 1,
      0,
      /more than 1048576 bytes of padding after the end-of-archive marker/,
    ],
    ['16 MiB of zeros (a 16 KB file)', 16 * 1024 * 1024, 0, /more than 1048576 bytes of padding/],
    ['a byte of data after the marker', 1, 0x41, /holds data after the end-of-archive marker/],
  ])('refuses %s as not_a_bundle', async (_name, bytes, byte, message) => {
    const file = await bundled();
    const padded = path.join(path.dirname(file), 'padded.tar.gz');
    await padBundle(file, padded, bytes, { byte });
    const outcome = await scanOutcome(padded);
    expect(outcome).toMatch(/^not_a_bundle: /);
    expect(outcome).toMatch(message);
  });

  it('refuses a tar that stops without its end-of-archive marker', async () => {
    const file = await bundled();
    await writeFile(file, gzipSync(await tarWithoutEnd(file)));
    expect(await scanOutcome(file)).toMatch(/^not_a_bundle: .*stops without its end-of-archive marker/);
  });

  it('refuses a zero block between two entries', async () => {
    const file = await bundled();
    const [manifest, ...rest] = await readTarEntries(file);
    const tar = Buffer.concat([rawTar([manifest!]).subarray(0, -1024), Buffer.alloc(512), rawTar(rest)]);
    await writeFile(file, gzipSync(tar));
    expect(await scanOutcome(file)).toMatch(/^not_a_bundle: .*a zero block between two entries/);
  });

  it('refuses an archive whose extended header gives an entry another size than its own header', async () => {
    const file = await bundled();
    const entries = await readTarEntries(file);
    // A file whose header says 1024 bytes of body (two zero blocks) and whose pax header says 0: node-tar reads
    // the body as the end-of-archive marker, where the headers' sizes lead past it.
    const extra = `.agent/runs/${RUN}/traces/extra.json`;
    const pax = new Pax({ path: extra, size: 0 }).encode();
    const tar = Buffer.concat([
      rawTar(entries).subarray(0, -1024),
      pax,
      rawTar([{ path: extra, body: Buffer.alloc(1024) }]),
    ]);
    await writeFile(file, gzipSync(tar));
    expect(await scanOutcome(file)).toMatch(
      /^not_a_bundle: .*end-of-archive marker is not where its headers' sizes lead/,
    );
  });
});
