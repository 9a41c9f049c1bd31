import type { ProjectRef } from '../../store/index.js';
import { readIngestManifest } from '../../ingest/index.js';
import type { IngestManifest } from '../../ingest/index.js';
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
  const read = await readIngestManifest(project, manifestPath);
  if ('problem' in read) return { blocks: [], problem: read.problem };
  return { manifest: read.manifest, blocks: read.manifest.artifacts.map(reportBlock) };
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
