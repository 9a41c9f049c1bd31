import { usingProject } from '../../store/index.js';
import type { ProjectRef } from '../../store/index.js';
import { ingestManifestSchema } from '../../ingest/index.js';
import type { IngestManifest } from '../../ingest/index.js';
import {
  describeError,
  isNodeId,
  isRunId,
  manifestPath as manifestPathOf,
  RUNS_DIR,
} from '../../project/index.js';
import type { ReportBlock, ReportProblem } from './run-report.js';

/** A manifest's blocks, or the problem that kept them out of the report. */
export type StepBlocks =
  | { readonly blocks: readonly ReportBlock[]; readonly manifest: IngestManifest }
  | { readonly blocks: readonly []; readonly problem: ReportProblem };

/**
 * Reads the blocks of a node's ingest manifest (project-relative `manifestPath`); a missing, unreadable or invalid
 * manifest is a problem saying what to do, never a throw, so the rest of the report still comes out.
 */
export async function readStepBlocks(project: ProjectRef, manifestPath: string): Promise<StepBlocks> {
  const problem = (code: string, message: string): StepBlocks => ({ blocks: [], problem: { code, message } });
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
  const manifest = checked.data;
  return { manifest, blocks: manifest.artifacts.map(reportBlock) };
}

/** Whether `path` is `.agent/runs/<run_id>/manifests/<node_id>.json`, ids by their pattern (no '/', no '..'). */
function isManifestPath(path: string): boolean {
  const [agent, runs, runId = '', manifests, file = '', ...rest] = path.split('/');
  const nodeId = file.endsWith('.json') ? file.slice(0, -'.json'.length) : '';
  if (rest.length > 0 || `${agent ?? ''}/${runs ?? ''}` !== RUNS_DIR || manifests !== 'manifests')
    return false;
  return isRunId(runId) && isNodeId(nodeId) && manifestPathOf(runId, nodeId) === path;
}

function reportBlock(entry: IngestManifest['artifacts'][number]): ReportBlock {
  const colon = entry.reason.indexOf(':');
  return {
    index: entry.index,
    lang: entry.lang,
    declaredFile: entry.declared_file,
    workspacePath: entry.workspace_path,
    bytes: entry.bytes,
    sha256: entry.sha256,
    status: entry.status,
    // Reasons read `code: what to do`; a written block has none.
    code: colon === -1 ? entry.reason : entry.reason.slice(0, colon),
    reason: entry.reason,
  };
}
