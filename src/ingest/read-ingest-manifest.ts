import {
  describeError,
  isNodeId,
  isRunId,
  manifestPath as manifestPathOf,
  RUNS_DIR,
} from '../project/index.js';
import { usingProject } from '../store/index.js';
import type { ProjectRef } from '../store/index.js';
import { ingestManifestSchema } from './ingest-manifest.js';
import type { IngestManifest } from './ingest-manifest.js';

/** A node's ingest manifest, or why it could not be read (`code` and a message saying what to do). */
export type ManifestRead =
  | { readonly manifest: IngestManifest }
  | { readonly problem: { readonly code: string; readonly message: string } };

/**
 * Reads the ingest manifest at project-relative `manifestPath` (as a trace or state.json names it), read-only; a
 * missing, unreadable or invalid manifest, or a path that is not `.agent/runs/<run_id>/manifests/<node_id>.json`,
 * is a problem, never a throw.
 */
export async function readIngestManifest(project: ProjectRef, manifestPath: string): Promise<ManifestRead> {
  const problem = (code: string, message: string): ManifestRead => ({ problem: { code, message } });
  // An ingest that failed before writing its manifest records an empty path: nothing to read, nothing unsafe.
  if (manifestPath === '') {
    return problem(
      'missing_manifest',
      'the ingest of this step wrote no manifest (it failed first), so its blocks are not shown; re-run the ingest of its document',
    );
  }
  // The path comes from a trace or state.json, which an import or a hand edit may have filled: only a node's
  // manifest in its run's manifests/ folder is ever read, never a path joined blindly onto the project.
  if (!isManifestPath(manifestPath)) {
    return problem(
      'unsafe_manifest_path',
      `the manifest path ${JSON.stringify(manifestPath)} is not .agent/runs/<run_id>/manifests/<node_id>.json, where every ingest writes its manifest, so it was not read; the run's records or state were edited by hand`,
    );
  }
  let text: string | undefined;
  try {
    text = await usingProject(project, ({ store }) => store.readText(manifestPath));
  } catch (error) {
    return problem(
      'unreadable_manifest',
      `cannot read ${manifestPath} (${describeError(error)}); its blocks are not shown`,
    );
  }
  if (text === undefined) {
    return problem(
      'missing_manifest',
      `${manifestPath} is missing, so its blocks are not shown; it may have been deleted: re-run the ingest of its document`,
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return problem(
      'unreadable_manifest',
      `${manifestPath} is not valid JSON, so its blocks are not shown; re-run the ingest of its document to rewrite it`,
    );
  }
  const checked = ingestManifestSchema.safeParse(value);
  if (!checked.success) {
    const issues = checked.error.issues
      .slice(0, 3)
      .map((issue) => `${issue.path.map(String).join('.') || '(root)'}: ${issue.message}`)
      .join('; ');
    return problem(
      'unreadable_manifest',
      `${manifestPath} is not a valid manifest v1 (${issues}), so its blocks are not shown; re-run the ingest of its document to rewrite it`,
    );
  }
  return { manifest: checked.data };
}

/** Whether `path` is `.agent/runs/<run_id>/manifests/<node_id>.json`, ids by their pattern (no '/', no '..'). */
function isManifestPath(path: string): boolean {
  const [agent, runs, runId = '', manifests, file = '', ...rest] = path.split('/');
  const nodeId = file.endsWith('.json') ? file.slice(0, -'.json'.length) : '';
  if (rest.length > 0 || `${agent ?? ''}/${runs ?? ''}` !== RUNS_DIR || manifests !== 'manifests')
    return false;
  return isRunId(runId) && isNodeId(nodeId) && manifestPathOf(runId, nodeId) === path;
}
