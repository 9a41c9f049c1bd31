import { z } from 'zod';
import { TEMP_FILE_PATTERN } from '../../workspace/index.js';
import { BUNDLE_MANIFEST_PATH, runDir, runIdSchema } from '../../project/index.js';
import { contentHashSchema } from '../artifact-record.js';

/** The archive path of a bundle's manifest, always its first entry. */
export { BUNDLE_MANIFEST_PATH };

// The run lock and its take-over files (src/runtime/run-lock.ts) and the confined writer's temp files
// (TEMP_FILE_PATTERN of src/workspace): bookkeeping of a live process, never part of a run's record.
const LOCK_FILE_PATTERN = /^lock(\.stale-\d+-[0-9a-f]+)?$/u;

/** One file of the run folder as the manifest lists it. */
export const bundleFileSchema = z
  .object({
    /** Project-relative, below `.agent/runs/<runId>/`. */
    path: z.string().min(1),
    /** sha256 of the file's bytes, 64 lowercase hex digits. */
    sha256: z.string().regex(/^[0-9a-f]{64}$/, 'must be 64 lowercase hex digits'),
    bytes: z.number().int().nonnegative(),
  })
  .strict();

/** `.agent/bundle.json`: what a bundle holds, so an import can check every entry against it. */
export const bundleManifestSchema = z
  .object({
    version: z.literal(1),
    runId: runIdSchema,
    createdAt: z.iso.datetime(),
    /** Every file of `.agent/runs/<runId>/`, recursively, in archive order. */
    files: z.array(bundleFileSchema),
    /** Every distinct content hash the run's artifacts.jsonl references. */
    objects: z.array(contentHashSchema),
  })
  .strict()
  .superRefine((manifest, context) => {
    const prefix = `${runDir(manifest.runId)}/`;
    const paths = new Set<string>();
    manifest.files.forEach((file, index) => {
      if (!file.path.startsWith(prefix) || file.path.length === prefix.length) {
        context.addIssue({
          code: 'custom',
          path: ['files', index, 'path'],
          message: `must be below ${prefix}`,
        });
      }
      if (paths.has(file.path)) {
        context.addIssue({ code: 'custom', path: ['files', index, 'path'], message: 'is listed twice' });
      }
      paths.add(file.path);
    });
    if (new Set(manifest.objects).size !== manifest.objects.length) {
      context.addIssue({ code: 'custom', path: ['objects'], message: 'lists an object twice' });
    }
  });

/** A bundle's manifest. */
export type BundleManifest = z.infer<typeof bundleManifestSchema>;
/** One run file listed in a bundle's manifest. */
export type BundleFile = z.infer<typeof bundleFileSchema>;

/**
 * Whether a path inside a run folder (relative to it) is a live process's bookkeeping: the run lock, a lock
 * being taken over, or a temp file of an interrupted atomic write. Bundles leave these out and refuse them.
 */
export function isRunBookkeeping(relativeToRun: string): boolean {
  const name = relativeToRun.slice(relativeToRun.lastIndexOf('/') + 1);
  if (name === relativeToRun && LOCK_FILE_PATTERN.test(name)) return true;
  return TEMP_FILE_PATTERN.test(name);
}
