import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BundleError } from '../../../src/artifacts/bundle/bundle-error.js';
import { bundleRun } from '../../../src/artifacts/bundle/bundle-run.js';
import {
  DEFAULT_BUNDLE_LIMITS,
  scanBundleArchive,
} from '../../../src/artifacts/bundle/scan-bundle-archive.js';
import type { ScannedFile } from '../../../src/artifacts/bundle/scan-bundle-archive.js';
import { gzipTar, readTarEntries } from '../../helpers/raw-tar.js';
import { recordRun } from '../../helpers/recorded-run.js';
import { tempProject } from '../../helpers/temp-project.js';

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
