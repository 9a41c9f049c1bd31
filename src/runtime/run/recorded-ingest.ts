import { openIngestRecords, recordFailureEvents } from '../../artifacts/index.js';
import { IngestFailedError, runIngest as ingestOnly } from '../../ingest/index.js';
import type { IngestedContent, IngestManifest, IngestOptions, IngestResult } from '../../ingest/index.js';
import { parseNodeId, parseRunId } from '../../project/index.js';
import type { NodeId, RunId } from '../../project/index.js';

/** The agent id of the records a library ingest makes (the CLI's are `cli`). */
const LIBRARY_AGENT_ID = 'library';

/**
 * The library's ingest: the ingest of one document, its placed files recorded as artifact versions of the run, as
 * the CLI's `ingest` records them (fail-open: a recording that fails is an `artifacts.error` event, never a
 * throw). A dry run records nothing, and a caller that passes `onPlaced` records itself (the runtime, the CLI).
 */
export async function runIngest(options: IngestOptions): Promise<IngestResult> {
  if (options.dryRun === true || options.onPlaced !== undefined) return ingestOnly(options);
  // Misuse is refused before anything is opened, with the ingest's own errors.
  const ids = { runId: parseRunId(options.runId, 'runId'), nodeId: parseNodeId(options.nodeId, 'nodeId') };
  return ingestOnly({ ...options, onPlaced: (placed) => recordLibraryIngest(options, ids, placed) });
}

/**
 * Records what a library ingest (`runIngest`, `createIngestStream`) placed as artifact versions of its run, under
 * the agent id `library`: the records opened when the document is placed (under the workspace lock), written and
 * closed; a failure goes to the caller's event log when it gave one, else to the run's, opened on the first one.
 */
export async function recordLibraryIngest(
  options: Pick<IngestOptions, 'projectDir' | 'docPath' | 'durability' | 'now' | 'events'>,
  ids: { readonly runId: RunId; readonly nodeId: NodeId },
  placed: readonly IngestedContent[],
): Promise<void> {
  const failures = recordFailureEvents(options.events ?? { project: options.projectDir, runId: ids.runId });
  const records = openIngestRecords({
    projectDir: options.projectDir,
    runId: ids.runId,
    durability: options.durability ?? 'fsync',
    ...(options.now === undefined ? {} : { now: options.now }),
    onFailure: failures.report,
  });
  try {
    await records.recordIngested(ids.nodeId, LIBRARY_AGENT_ID, placed, options.docPath);
  } finally {
    await records.close();
    await failures.close();
  }
}

/** {@link runIngest}, resolving with the manifest; rejects with `IngestFailedError` under `failMode: 'closed'`. */
export async function ingestDocument(options: IngestOptions): Promise<IngestManifest> {
  const result = await runIngest(options);
  if (options.failMode === 'closed' && result.failed) throw new IngestFailedError(result);
  return result.manifest;
}
