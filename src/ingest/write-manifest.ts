import path from 'node:path';
import { openConfinedRoot } from '../workspace/index.js';
import type { IngestManifest } from './ingest-manifest.js';
import { describeError } from '../project/index.js';
import type { ReportProblem } from './ingest-problem.js';

/**
 * Writes a manifest atomically to `.agent/runs/<run_id>/manifests/<node_id>.json` through the confined writer;
 * returns its project-relative path, or null after reporting why it could not be written.
 */
export async function writeManifest(
  projectDir: string,
  manifest: IngestManifest,
  durability: 'fsync' | 'none',
  report: ReportProblem,
): Promise<string | null> {
  const relative = path.posix.join(
    '.agent',
    'runs',
    manifest.run_id,
    'manifests',
    `${manifest.node_id}.json`,
  );
  try {
    const root = await openConfinedRoot(projectDir, { create: false });
    try {
      const bytes = new TextEncoder().encode(`${JSON.stringify(manifest, null, 2)}\n`);
      const outcome = await root.write(relative, bytes, { durability });
      if (outcome.status !== 'refused') return relative;
      report('io_error', `manifest not written to ${relative}: ${outcome.code}: ${outcome.message}`);
      return null;
    } finally {
      await root.close();
    }
  } catch (error) {
    report('io_error', `manifest not written to ${relative}: ${describeError(error)}`);
    return null;
  }
}
