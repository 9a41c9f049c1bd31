import { AGENT_DIR, describeError } from '../../project/index.js';
import type { NodeId, RunId } from '../../project/index.js';
import { redactSecrets } from '../../events/index.js';
import type { ProjectRef } from '../../store/index.js';
import type { TraceContent } from '../trace-content.js';
import { openArtifactRecorder, versionsOfIngested } from './record-artifacts.js';
import type { ArtifactRecorder, PlacedFile } from './record-artifacts.js';

/** A node's (or step's) document, as written. */
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

/** One recording that failed; the work it belonged to goes on (fail-open, spec ingest.md section 6). */
export interface RecordFailure {
  /** The node (or document's node) whose records were lost; absent when no node is to blame (closing). */
  readonly nodeId?: NodeId;
  /** What was not recorded, why, and what to check; secrets already redacted. */
  readonly message: string;
}

/** Options of {@link openIngestRecords}. */
export interface IngestRecordsOptions {
  /** The project folder (its `.agent/` the store), or a `Project` and its store. */
  readonly projectDir: ProjectRef;
  readonly runId: RunId;
  /** Object and record-line durability: `fsync` (default) or `none`. */
  readonly durability?: 'fsync' | 'none';
  /** Clock for `createdAt`, for tests. */
  readonly now?: () => Date;
  /** Told of every failed recording: the runtime writes an `artifacts.error` event, the CLI a warning line. */
  readonly onFailure: (failure: RecordFailure) => void;
}

/** What was ingested in one run, recorded fail-open: a recording failure is reported, never thrown. */
export interface IngestRecords {
  /** Records a node's document as a `message` version. */
  recordDocument(document: RecordedDocument): Promise<void>;
  /**
   * Records the files one ingest placed as `file` (or `design`) versions of node `nodeId`; `documentPath`, when
   * given, names the ingested document in a failure message.
   */
  recordIngested(
    nodeId: NodeId,
    agentId: string,
    contents: readonly PlacedFile[],
    documentPath?: string,
  ): Promise<void>;
  /** Records one node execution as a `trace`. */
  recordTrace(trace: TraceContent): Promise<void>;
  /**
   * The artifact recorder behind these records, opened on first use, so another writer of the run (a contract
   * submission) records in the same serialized queue; undefined when it cannot be opened.
   */
  artifactRecorder(): Promise<ArtifactRecorder | undefined>;
  /** Waits for recording in flight and releases the object store; never throws. */
  close(): Promise<void>;
}

/**
 * Opens the one "record what was ingested" of a run, shared by the runtime and `artifact-ingest ingest`. The
 * artifact recorder behind it is opened on first use and again after a failed open, so a store that cannot be
 * opened costs each ingest its records, never the ingest itself.
 */
export function openIngestRecords(options: IngestRecordsOptions): IngestRecords {
  const { projectDir, runId } = options;
  let opening: Promise<ArtifactRecorder> | undefined;

  const recorder = async (): Promise<ArtifactRecorder> => {
    opening ??= openArtifactRecorder(projectDir, {
      ...(options.now === undefined ? {} : { now: options.now }),
      durability: options.durability ?? 'fsync',
    });
    try {
      return await opening;
    } catch (error) {
      opening = undefined;
      throw error;
    }
  };

  const failOpen = async (
    nodeId: NodeId | undefined,
    what: string,
    work: () => Promise<unknown>,
  ): Promise<void> => {
    try {
      await work();
    } catch (error) {
      const message = redactSecrets(
        `${what}: ${describeError(error)}; check that ${AGENT_DIR}/ is a writable directory`,
      );
      try {
        options.onFailure(nodeId === undefined ? { message } : { nodeId, message });
      } catch {
        // A reporter that fails must not fail the ingest either (fail-open).
      }
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
    recordIngested: async (nodeId, agentId, contents, documentPath) => {
      if (contents.length === 0) return;
      const from = documentPath ?? `node ${nodeId}`;
      await failOpen(nodeId, `the files of ${from} were not recorded`, async () => {
        await (
          await recorder()
        ).recordVersions(versionsOfIngested(contents, { runId, taskId: nodeId, agentId }));
      });
    },
    recordTrace: (trace) =>
      failOpen(trace.nodeId, `the trace of node ${trace.nodeId} was not recorded`, async () => {
        await (await recorder()).recordTrace({ runId, taskId: trace.nodeId, agentId: trace.agent, trace });
      }),
    artifactRecorder: async () => {
      try {
        return await recorder();
      } catch {
        // The caller opens its own, and reports the failure itself if that fails too.
        return undefined;
      }
    },
    close: async () => {
      if (opening === undefined) return;
      await failOpen(undefined, 'the artifact recorder did not close', async () => {
        const opened = await opening?.catch(() => undefined);
        await opened?.close();
      });
    },
  };
}
