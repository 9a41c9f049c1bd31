import { openArtifactRecorder, versionsOfIngested } from '../../artifacts/index.js';
import type { ArtifactRecorder, TraceContent } from '../../artifacts/index.js';
import { redactSecrets } from '../../events/index.js';
import type { EventLog } from '../../events/index.js';
import type { IngestedContent } from '../../ingest/index.js';
import type { NodeId, RunId } from '../../project/index.js';

/** A node's document, as written. */
export interface RecordedDocument {
  readonly nodeId: NodeId;
  /** The agent's name, or `runtime` for a write_file node. */
  readonly agentId: string;
  /** Project-relative document path. */
  readonly outputPath: string;
  readonly bytes: Uint8Array;
  /** False when the document already held exactly these bytes (the writer's `unchanged`). */
  readonly changed: boolean;
}

/** The artifact records of one run, kept fail-open: a recording failure becomes an `artifacts.error` event. */
export interface RunRecorder {
  /** Records a node's document as a `message` version. */
  recordDocument(document: RecordedDocument): Promise<void>;
  /** Records the workspace files one ingest of a node's document placed, as `file` (or `design`) versions. */
  recordIngested(nodeId: NodeId, agentId: string, contents: readonly IngestedContent[]): Promise<void>;
  /** Records one node execution as a `trace`. */
  recordTrace(trace: TraceContent): Promise<void>;
  /** Waits for recording in flight and releases the object store; never throws. */
  close(): Promise<void>;
}

/** Options of {@link openRunRecorder}. */
export interface RunRecorderOptions {
  readonly projectDir: string;
  readonly runId: RunId;
  /** The run's events (bound to its run_id): where recording failures are reported. */
  readonly events: EventLog;
  readonly now: () => Date;
  readonly durability: 'fsync' | 'none';
}

/**
 * Opens the recorder of one run. The artifact recorder behind it is opened on first use and again after a
 * failed open, so a store that cannot be opened costs each node its records, never the node itself.
 */
export function openRunRecorder(options: RunRecorderOptions): RunRecorder {
  const { projectDir, runId, events } = options;
  let opening: Promise<ArtifactRecorder> | undefined;

  const recorder = async (): Promise<ArtifactRecorder> => {
    opening ??= openArtifactRecorder(projectDir, { now: options.now, durability: options.durability });
    try {
      return await opening;
    } catch (error) {
      opening = undefined;
      throw error;
    }
  };

  /** Runs one recording step; a failure is reported, never thrown (fail-open, spec ingest.md section 6). */
  const failOpen = async (nodeId: NodeId | undefined, what: string, work: () => Promise<unknown>) => {
    try {
      await work();
    } catch (error) {
      reportFailure(
        events,
        nodeId,
        `${what}: ${messageOf(error)}; check that .agent/ is a writable directory (the run goes on)`,
      );
    }
  };

  return {
    recordDocument: (document) =>
      failOpen(document.nodeId, `document ${document.outputPath} was not recorded`, async () => {
        await (
          await recorder()
        ).recordVersions([
          {
            runId,
            taskId: document.nodeId,
            agentId: document.agentId,
            kind: 'message',
            path: document.outputPath,
            bytes: document.bytes,
            language: 'markdown',
            source: 'runtime',
            changed: document.changed,
          },
        ]);
      }),
    recordIngested: async (nodeId, agentId, contents) => {
      if (contents.length === 0) return;
      await failOpen(
        nodeId,
        `the ${contents.length} ingested file(s) of node ${nodeId} were not recorded`,
        async () => {
          await (
            await recorder()
          ).recordVersions(versionsOfIngested(contents, { runId, taskId: nodeId, agentId }));
        },
      );
    },
    recordTrace: (trace) =>
      failOpen(trace.nodeId, `the trace of node ${trace.nodeId} was not recorded`, async () => {
        await (await recorder()).recordTrace({ runId, taskId: trace.nodeId, agentId: trace.agent, trace });
      }),
    close: async () => {
      if (opening === undefined) return;
      await failOpen(undefined, 'the artifact recorder did not close', async () => {
        const opened = await opening?.catch(() => undefined);
        await opened?.close();
      });
    },
  };
}

function reportFailure(events: EventLog, nodeId: string | undefined, text: string): void {
  const message = redactSecrets(text);
  try {
    events.write('ERROR', 'artifacts.error', {
      ...(nodeId === undefined ? {} : { node_id: nodeId }),
      code: 'record_failed',
      message,
    });
  } catch {
    // A closed or broken event log must not fail the node either (fail-open).
    process.stderr.write(`artifact-ingest: ${message}\n`);
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
