import type { RunTimeline } from '../../artifacts/index.js';
import type { Project } from '../../store/index.js';
import { runManifestsDir } from '../../project/index.js';
import type { RunId } from '../../project/index.js';
import { listJsonFiles } from './list-json-files.js';

/**
 * Whether the ingest was on in a run whose state does not say (a workflow reads the flag at each advance; an
 * unreadable state), from what the run left: on when a trace carries an ingest summary or the run has a
 * manifest, off when documents were written and none was ingested, null when no document was written yet.
 */
export async function readIngestEnabled(
  project: Project,
  runId: RunId,
  timeline: RunTimeline,
): Promise<boolean | null> {
  const executions = timeline.steps.flatMap((step) => (step.content === null ? [] : [step]));
  if (executions.some((step) => step.content?.ingest !== undefined)) return true;
  // A trace is recorded fail-open: a lost one still leaves the manifest its ingest wrote.
  const manifests = await listJsonFiles(project, runManifestsDir(runId));
  if ('names' in manifests && manifests.names.length > 0) return true;
  const documented = executions.some(
    (step) =>
      step.content?.document !== undefined || step.artifacts.some((record) => record.type === 'message'),
  );
  // An unlistable manifests folder leaves the question open rather than saying off.
  return documented && 'names' in manifests ? false : null;
}
