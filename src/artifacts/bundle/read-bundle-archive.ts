import { scanBundleArchive } from './scan-bundle-archive.js';
import type { BundleLimits } from './scan-bundle-archive.js';
import type { BundleManifest } from './bundle-manifest.js';

/** A bundle checked entry by entry without keeping its contents: paths, sizes and hashes, and the run's records. */
export interface BundleArchive {
  readonly manifest: BundleManifest;
  /** Run files by project-relative path, in archive order: their sha256 (hex) and size. */
  readonly runFiles: ReadonlyMap<string, { readonly sha256: string; readonly bytes: number }>;
  /** The bytes of the run's artifacts.jsonl, when the bundle has one (the records name the objects). */
  readonly records: Uint8Array | undefined;
  /** Run folders (project-relative, no trailing '/'), in archive order. */
  readonly runDirectories: readonly string[];
  /** Content hashes of the bundle's objects, each verified against the hash its path names. */
  readonly objects: ReadonlySet<string>;
}

/**
 * Reads a gzip tar bundle once, streaming (see {@link scanBundleArchive}): every entry judged, sized from its
 * header and hashed; only the manifest and artifacts.jsonl are kept. Nothing is written.
 */
export async function readBundleArchive(bundleFile: string, limits: BundleLimits): Promise<BundleArchive> {
  const runFiles = new Map<string, { readonly sha256: string; readonly bytes: number }>();
  const objects = new Set<string>();
  let records: Uint8Array | undefined;
  const scanned = await scanBundleArchive(bundleFile, limits, {
    // judgeBundleEntry admits artifacts.jsonl only at the top of the run folder: this is the run's own.
    keep: (verdict) => verdict.kind === 'runFile' && verdict.path.endsWith('/artifacts.jsonl'),
    onFile: (file) => {
      if (file.verdict.kind === 'object') {
        objects.add(file.verdict.hash);
        return;
      }
      runFiles.set(file.verdict.path, { sha256: file.sha256, bytes: file.size });
      if (file.bytes !== undefined) records = file.bytes;
    },
  });
  return {
    manifest: scanned.manifest,
    runFiles,
    records,
    runDirectories: scanned.runDirectories,
    objects,
  };
}
