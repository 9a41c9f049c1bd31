import type { EventLog } from '../events/index.js';
import type { IngestLimits } from '../config/index.js';
import type { FenceParser } from '../project/index.js';
import type { ProjectRef } from '../store/index.js';
import { describeError, sha256Hex } from '../project/index.js';
import type { NodeId, RunId } from '../project/index.js';
import type { ConfinedRoot } from '../workspace/index.js';
import type { IngestedContent } from './apply-plans.js';
import type { BlockOutcome } from './block-outcome.js';
import type { IngestMode, SourceKind } from './ingest-manifest.js';
import type { IngestRoots } from './ingest-roots.js';
import { ingestWrittenDocument } from './ingest-written-document.js';
import type { DocumentIngestSummary } from './ingest-written-document.js';

/**
 * Where a concluded document and the files its ingest placed are recorded: the port that the artifacts'
 * `openIngestRecords` satisfies (ingest and artifacts may not import each other), fail-open by contract.
 */
export interface DocumentRecords {
  /** Records the document itself (a `message` version). */
  recordDocument(document: {
    readonly nodeId: NodeId;
    readonly agentId: string;
    readonly outputPath: string;
    readonly bytes: Uint8Array;
    readonly changed: boolean;
  }): Promise<void>;
  /** Records the files one ingest placed (`file` or `design` versions). */
  recordIngested(nodeId: NodeId, agentId: string, contents: readonly IngestedContent[]): Promise<void>;
}

/** Whether and how the document is ingested after it is written. */
export interface ConcludeIngest {
  /** The feature flag, resolved by the caller (`resolveIngestEnabled`). */
  readonly enabled: boolean;
  readonly sourceKind: SourceKind;
  readonly mode: IngestMode;
  /** Roots shared by every document of the run; their opener closes them. */
  readonly roots?: IngestRoots;
  readonly limits?: Partial<IngestLimits>;
  /** The block parser (`ingest.parser`); by default the scanner. */
  readonly parser?: FenceParser;
  readonly durability?: 'fsync' | 'none';
}

/** One document to write, ingest behind the flag, and record. */
export interface ConcludeDocumentOptions {
  /** Where the manifest and the events are kept: a `Project`'s store (or a project folder's files store). */
  readonly project: ProjectRef;
  /** The project's live tree (docs/, workspace/), opened once by the run: the document is written through it. */
  readonly root: ConfinedRoot;
  readonly runId: RunId;
  /** The graph node or workflow step the document belongs to. */
  readonly nodeId: NodeId;
  /** Who wrote it: the agent's name, `runtime` for a write_file node, `workflow` for a step's output. */
  readonly agentId: string;
  /** Project-relative path of the document. */
  readonly docPath: string;
  readonly text: string;
  readonly records: DocumentRecords;
  /** The run's event log. */
  readonly events: EventLog;
  /** Names the `<subject>.ingest_skipped` event: `node` for the graph runtime, `step` for a workflow. */
  readonly subject: 'node' | 'step';
  readonly ingest: ConcludeIngest;
}

/** How concluding a document ended: written (and ingested when the flag is on), or not written at all. */
export type ConcludedDocument =
  | {
      readonly status: 'completed';
      readonly outputPath: string;
      readonly bytes: number;
      readonly sha256: string;
      /** The document as written, decoded. */
      readonly text: string;
      /** Present when the ingest ran. */
      readonly ingest?: DocumentIngestSummary;
      /** Every manifest entry's outcome in document order, when the ingest ran (empty when it threw). */
      readonly blocks?: readonly BlockOutcome[];
    }
  | {
      readonly status: 'failed';
      readonly code: 'output_refused' | 'output_write_failed';
      readonly message: string;
    };

/** A UTF-16 code unit of a surrogate pair standing alone: UTF-8 cannot encode it (it is written as U+FFFD). */
const LONE_SURROGATE = /\p{Cs}/u;

/**
 * The one "write the document, ingest it behind the flag, record" shared by a graph node and a workflow
 * step: writes atomically through the confined root, records the document, then (flag on, not under
 * `audits/`) ingests it fail-open and records the files it placed.
 */
export async function concludeDocument(options: ConcludeDocumentOptions): Promise<ConcludedDocument> {
  const { docPath: outputPath, nodeId, agentId } = options;
  const bytes = new TextEncoder().encode(options.text);
  let changed: boolean;
  try {
    // Temp file + rename: a rerun replaces an earlier (or interrupted) document atomically.
    const outcome = await options.root.write(outputPath, bytes, { durability: 'fsync' });
    if (outcome.status === 'refused') {
      return {
        status: 'failed',
        code: 'output_refused',
        message: `document ${outputPath} was not written: ${outcome.code}: ${outcome.message}`,
      };
    }
    changed = outcome.status !== 'unchanged';
  } catch (error) {
    return {
      status: 'failed',
      code: 'output_write_failed',
      message: `document ${outputPath} was not written: ${describeError(error)}`,
    };
  }

  await options.records.recordDocument({ nodeId, agentId, outputPath, bytes, changed });

  const written = {
    status: 'completed',
    outputPath,
    bytes: bytes.byteLength,
    sha256: sha256Hex(bytes),
    // What the disk holds: the caller's own string unless a lone surrogate became U+FFFD, so that a large
    // document is not held twice.
    text: LONE_SURROGATE.test(options.text) ? new TextDecoder().decode(bytes) : options.text,
  } as const;
  const { ingest } = options;
  if (!ingest.enabled) return written;
  if (!isIngestedPath(outputPath)) {
    options.events.write('INFO', `${options.subject}.ingest_skipped`, {
      node_id: nodeId,
      output_path: outputPath,
      reason: 'documents under audits/ are not ingested',
    });
    return written;
  }
  const { summary, blocks } = await ingestWrittenDocument({
    projectDir: options.project,
    runId: options.runId,
    nodeId,
    docPath: outputPath,
    content: bytes,
    text: written.text,
    sourceKind: ingest.sourceKind,
    mode: ingest.mode,
    events: options.events,
    ...(ingest.roots === undefined ? {} : { roots: ingest.roots }),
    ...(ingest.limits === undefined ? {} : { limits: ingest.limits }),
    ...(ingest.parser === undefined ? {} : { parser: ingest.parser }),
    ...(ingest.durability === undefined ? {} : { durability: ingest.durability }),
    // Recorded under the workspace lock, right after the renames: the last record of a path is its last writer's.
    onPlaced: (placed) => options.records.recordIngested(nodeId, agentId, placed),
  });
  return { ...written, ingest: summary, blocks };
}

/** Spec ingest.md, project layout: `audits/**` documents are not ingested (there is no setting for it yet). */
function isIngestedPath(outputPath: string): boolean {
  return !outputPath.startsWith('audits/');
}
