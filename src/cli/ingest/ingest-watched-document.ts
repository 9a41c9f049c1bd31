import path from 'node:path';
import { openIngestRecords, recordFailureEvents } from '../../artifacts/index.js';
import type { ProjectConfig } from '../../config/index.js';
import { deriveNodeId, runIngest } from '../../ingest/index.js';
import { describeError, sha256Hex } from '../../project/index.js';
import type { RunId } from '../../project/index.js';
import { errnoOf, readRegularFile } from '../../workspace/index.js';
import type { CliIo } from '../cli-io.js';
import type { FileSignature, SettleTracker } from './settle-documents.js';
import type { WatchState } from './watch-state.js';

/** What one `watch` session did, for its summary line. */
export interface WatchCounts {
  ingested: number;
  unchanged: number;
  failed: number;
  written: number;
  skipped: number;
  rejected: number;
}

/** Everything {@link ingestWatchedDocument} needs, the same for each document of a session. */
export interface WatchSession {
  readonly projectDir: string;
  readonly runId: RunId;
  readonly config: ProjectConfig;
  readonly state: WatchState;
  readonly tracker: SettleTracker;
  readonly counts: WatchCounts;
  readonly json: boolean;
  readonly io: CliIo;
}

/**
 * Ingests a settled document unless its content is the version last ingested (the state's sha256), then
 * remembers it and prints its line; the bytes hashed are the bytes ingested, so no change slips in between.
 */
export async function ingestWatchedDocument(
  session: WatchSession,
  docPath: string,
  signature: FileSignature,
): Promise<void> {
  const { io, tracker, state, counts } = session;
  let bytes: Buffer;
  try {
    bytes = await readRegularFile(path.join(session.projectDir, docPath));
  } catch (error) {
    // Renamed away or replaced since it settled: the next change or scan brings it back.
    if (errnoOf(error) === 'ENOENT') return;
    counts.failed += 1;
    tracker.handled(docPath, signature);
    io.stderr.write(
      `artifact-ingest: watch: ${docPath} was not ingested: ${describeError(error)}; it is tried again when it changes\n`,
    );
    return;
  }
  // Written to while it was read: it has not settled after all.
  if ((await tracker.signatureOf(docPath)) !== signature) {
    tracker.mark(docPath);
    return;
  }
  const sha256 = sha256Hex(bytes);
  if (state.get(docPath)?.sha256 === sha256) {
    counts.unchanged += 1;
    tracker.handled(docPath, signature);
    return;
  }
  const nodeId = deriveNodeId(docPath);
  const owner = state.ownerOf(nodeId, docPath);
  if (owner !== undefined) {
    counts.failed += 1;
    tracker.handled(docPath, signature);
    io.stderr.write(
      `artifact-ingest: watch: ${docPath} was not ingested: ${owner} already derives node id '${nodeId}' in run ${session.runId}, and one node has one manifest; rename one of them\n`,
    );
    return;
  }

  const result = await ingestRecorded(session, docPath, nodeId, bytes);
  tracker.handled(docPath, signature);
  try {
    await state.remember(docPath, { sha256, nodeId });
  } catch (error) {
    io.stderr.write(
      `artifact-ingest: watch: warning: the watch state was not written (${describeError(error)}); a restart will ingest ${docPath} again\n`,
    );
  }
  const { summary } = result.manifest;
  const [problem] = result.problems;
  counts.ingested += 1;
  counts.written += summary.written;
  counts.skipped += summary.skipped;
  counts.rejected += summary.rejected;
  if (problem !== undefined) counts.failed += 1;
  if (session.json) {
    const line = {
      doc_path: docPath,
      node_id: nodeId,
      run_id: session.runId,
      sha256,
      summary,
      manifest_path: result.manifestPath,
      ...(problem === undefined ? {} : { error: { code: problem.code, message: problem.message } }),
    };
    io.stdout.write(`${JSON.stringify(line)}\n`);
  } else {
    io.stdout.write(
      `ingested ${docPath} as node ${nodeId} (sha256 ${sha256.slice(0, 12)}): ${plural(summary.total_blocks, 'block')}, ${String(summary.written)} written, ${String(summary.skipped)} skipped, ${String(summary.rejected)} rejected${problem === undefined ? '' : `, error ${problem.code}`}\n`,
    );
  }
  for (const each of result.problems) {
    io.stderr.write(`artifact-ingest: ${docPath}: ${each.code}: ${each.message}\n`);
  }
}

/** One ingest of `bytes` as `docPath`, its files recorded as the `ingest` command records them (fail-open). */
async function ingestRecorded(
  session: WatchSession,
  docPath: string,
  nodeId: ReturnType<typeof deriveNodeId>,
  bytes: Uint8Array,
): ReturnType<typeof runIngest> {
  const { projectDir, runId, config, io } = session;
  const events = recordFailureEvents({ project: projectDir, runId });
  const records = openIngestRecords({
    projectDir,
    runId,
    durability: config.ingest.durability,
    onFailure: (failure) => {
      io.stderr.write(`artifact-ingest: warning: ${failure.message}\n`);
      events.report(failure);
    },
  });
  try {
    const text = decodeUtf8(bytes);
    return await runIngest({
      projectDir,
      docPath,
      runId,
      nodeId,
      sourceKind: 'cli',
      mode: 'unknown',
      durability: config.ingest.durability,
      limits: config.ingest.limits,
      parser: config.ingest.parser,
      content: bytes,
      ...(text === undefined ? {} : { text }),
      onPlaced: (placed) => records.recordIngested(nodeId, 'cli', placed, docPath),
    });
  } finally {
    await records.close();
    await events.close();
  }
}

function decodeUtf8(bytes: Uint8Array): string | undefined {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

function plural(count: number, noun: string): string {
  return `${String(count)} ${noun}${count === 1 ? '' : 's'}`;
}
