import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BundleError } from '../../../src/artifacts/bundle/bundle-error.js';
import { bundleManifestSchema } from '../../../src/artifacts/bundle/bundle-manifest.js';
import { bundleRun } from '../../../src/artifacts/bundle/bundle-run.js';
import { checkWrittenBundle } from '../../../src/artifacts/bundle/check-written-bundle.js';
import { gzipTar, readTarEntries } from '../../helpers/raw-tar.js';
import { recordRun } from '../../helpers/recorded-run.js';
import { tempProject } from '../../helpers/temp-project.js';

const RUN = 'run-check';

/** A real bundle and its manifest, as bundleRun packed them. */
async function bundled(): Promise<{ file: string; manifest: ReturnType<typeof bundleManifestSchema.parse> }> {
  const project = await tempProject();
  await recordRun(project, RUN);
  const file = path.join(await tempProject(), 'run.tar.gz');
  await bundleRun(project, RUN, file);
  const [first] = await readTarEntries(file);
  return { file, manifest: bundleManifestSchema.parse(JSON.parse(String(first?.body))) };
}

async function checkError(
  file: string,
  manifest: Parameters<typeof checkWrittenBundle>[1],
): Promise<BundleError> {
  const error = await checkWrittenBundle(file, manifest).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(BundleError);
  expect((error as BundleError).code).toBe('incomplete_bundle');
  return error as BundleError;
}

describe('checkWrittenBundle', () => {
  it('accepts the bundle it is asked about', async () => {
    const { file, manifest } = await bundled();
    await expect(checkWrittenBundle(file, manifest)).resolves.toBeUndefined();
  });

  it('refuses a bundle cut short', async () => {
    const { file, manifest } = await bundled();
    const bytes = await readFile(file);
    await writeFile(file, bytes.subarray(0, Math.floor(bytes.length / 2)));
    expect((await checkError(file, manifest)).message).toMatch(/does not read back as a bundle/);
  });

  it('refuses a bundle whose tar stops before its last entries (an intact gzip of half an archive)', async () => {
    const { file, manifest } = await bundled();
    const entries = await readTarEntries(file);
    await writeFile(file, gzipTar(entries.slice(0, -1)));
    expect((await checkError(file, manifest)).message).toMatch(/object sha256:[0-9a-f]{64} is missing/);
  });

  it('refuses a bundle whose bundle.json differs from the one packed', async () => {
    const { file, manifest } = await bundled();
    const other = { ...manifest, createdAt: '2000-01-01T00:00:00.000Z' };
    expect((await checkError(file, other)).message).toMatch(/bundle\.json differs/);
  });

  it('refuses a bundle whose run file differs from the one packed', async () => {
    const { file, manifest } = await bundled();
    const [first, ...rest] = manifest.files;
    const other = { ...manifest, files: [{ ...first!, sha256: '0'.repeat(64) }, ...rest] };
    const entries = await readTarEntries(file);
    const manifestEntry = { ...entries[0]!, body: JSON.stringify(other) };
    await writeFile(file, gzipTar([manifestEntry, ...entries.slice(1)]));
    // The file's own bundle.json now agrees with `other`, whose hash its run file does not match.
    expect((await checkError(file, other)).message).toMatch(
      /\.agent\/runs\/run-check\/artifacts\.jsonl differs from the file packed/,
    );
  });
});
