import { isDeepStrictEqual } from 'node:util';
import { describeError } from '../../project/index.js';
import { BundleError } from './bundle-error.js';
import type { BundleManifest } from './bundle-manifest.js';
import { readBundleArchive } from './read-bundle-archive.js';
import type { BundleArchive } from './read-bundle-archive.js';
import type { BundleLimits } from './scan-types.js';

// The writer's own file is judged by what it holds, not by an importer's limits (those are the importer's choice).
const NO_LIMITS: BundleLimits = {
  maxBytes: Number.MAX_SAFE_INTEGER,
  maxFileBytes: Number.MAX_SAFE_INTEGER,
  maxObjectBytes: Number.MAX_SAFE_INTEGER,
};

/**
 * Reads a freshly written bundle back as an import's first pass does (gunzip, every entry judged and hashed, up to
 * the end-of-archive marker) and checks that it holds exactly `manifest`: every run file with its sha256 and size,
 * every object under its hash. Throws `incomplete_bundle` otherwise, so a bundle is never reported made unless the
 * whole file is on disk.
 */
export async function checkWrittenBundle(file: string, manifest: BundleManifest): Promise<void> {
  let archive: BundleArchive;
  try {
    archive = await readBundleArchive(file, NO_LIMITS);
  } catch (error) {
    throw incomplete(`it does not read back as a bundle (${describeError(error)})`, error);
  }
  if (!isDeepStrictEqual(archive.manifest, manifest))
    throw incomplete('its bundle.json differs from the one packed');
  for (const { path, sha256, bytes } of manifest.files) {
    const found = archive.runFiles.get(path);
    if (found?.sha256 !== sha256 || found.bytes !== bytes) {
      throw incomplete(`${path} ${found === undefined ? 'is missing' : 'differs from the file packed'}`);
    }
  }
  if (archive.runFiles.size !== manifest.files.length)
    throw incomplete('it holds run files that were not packed');
  const missing = manifest.objects.find((hash) => !archive.objects.has(hash));
  if (missing !== undefined) throw incomplete(`object ${missing} is missing`);
  if (archive.objects.size !== manifest.objects.length)
    throw incomplete('it holds objects that were not packed');
}

function incomplete(why: string, cause?: unknown): BundleError {
  return new BundleError({
    code: 'incomplete_bundle',
    message: `the bundle did not read back whole after it was written: ${why}; nothing was written at the output, so check the disk (space, errors) and bundle again`,
    ...(cause === undefined ? {} : { cause }),
  });
}
