import { describeError, manifestPath } from '../project/index.js';
import type { IngestManifest } from './ingest-manifest.js';
import type { IngestRoots } from './ingest-roots.js';
import type { ReportProblem } from './ingest-problem.js';

/**
 * Writes a manifest atomically to `.agent/runs/<run_id>/manifests/<node_id>.json` through the project's
 * confined root; returns its project-relative path, or null after reporting why it could not be written.
 */
export async function writeManifest(
  roots: IngestRoots,
  manifest: IngestManifest,
  durability: 'fsync' | 'none',
  report: ReportProblem,
): Promise<string | null> {
  const relative = manifestPath(manifest.run_id, manifest.node_id);
  try {
    const root = await roots.project();
    const bytes = new TextEncoder().encode(`${JSON.stringify(manifest, null, 2)}\n`);
    const outcome = await root.write(relative, bytes, { durability });
    if (outcome.status !== 'refused') return relative;
    report('io_error', `manifest not written to ${relative}: ${outcome.code}: ${outcome.message}`);
    return null;
  } catch (error) {
    report('io_error', `manifest not written to ${relative}: ${describeError(error)}`);
    return null;
  }
}
