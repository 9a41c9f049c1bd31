import { describeError, manifestPath } from '../project/index.js';
import { StoreError } from '../store/index.js';
import type { ProjectStore } from '../store/index.js';
import type { IngestManifest } from './ingest-manifest.js';
import type { ReportProblem } from './ingest-problem.js';

/**
 * Writes a manifest atomically to `.agent/runs/<run_id>/manifests/<node_id>.json` in the project's store;
 * returns that key, or null after reporting why it could not be written.
 */
export async function writeManifest(
  store: ProjectStore,
  manifest: IngestManifest,
  durability: 'fsync' | 'none',
  report: ReportProblem,
): Promise<string | null> {
  const key = manifestPath(manifest.run_id, manifest.node_id);
  try {
    await store.replace(key, `${JSON.stringify(manifest, null, 2)}\n`, { durability });
    return key;
  } catch (error) {
    const why = error instanceof StoreError ? `${error.code}: ${error.message}` : describeError(error);
    report('io_error', `manifest not written to ${key}: ${why}`);
    return null;
  }
}
