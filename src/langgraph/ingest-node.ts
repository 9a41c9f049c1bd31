import type { LangGraphRunnableConfig } from '@langchain/langgraph';
import type { IngestLimits } from '../config/index.js';
import type { IngestMode, SourceKind } from '../ingest/index.js';
import { CodedError, parseNodeId, parseRunId } from '../project/index.js';
import type { FenceParser } from '../project/index.js';
import { resolveOutputPath } from '../runtime/index.js';
import type { ProjectRef } from '../store/index.js';
import { answerText } from './answer-text.js';
import { ingestAnswer } from './ingest-answer.js';
import { nothingToIngestSummary } from './ingest-node-summary.js';
import type { IngestNodeSummary } from './ingest-node-summary.js';

/** Options of {@link ingestNode}: `ingestDocument`'s, each with the default a LangGraph graph expects. */
export interface IngestNodeOptions {
  /** The project: a folder (its documents, workspace/ and .agent/), or a `Project` (its owner closes its store). */
  readonly projectDir: ProjectRef;
  /** The run the manifest and records belong to; default: the invocation's `configurable.thread_id`. */
  readonly runId?: string;
  /** The manifest's node id; default: the graph node's name (`ingest` when called outside a graph). */
  readonly nodeId?: string;
  /**
   * Where the answer is saved, byte for byte, before it is ingested: a path under `docs/`, or a function of the
   * ids giving one; default `docs/<run_id>/<node_id>.md`, so threads do not overwrite each other's answers.
   */
  readonly docPath?: string | ((ids: { readonly runId: string; readonly nodeId: string }) => string);
  /** The state key holding the answer: messages (the last AI message counts), one message, or a string. */
  readonly key?: string;
  /** Who the records name as the author (default `langgraph`). */
  readonly agentId?: string;
  /** The manifest's `source.kind` (default `graph_runtime`). */
  readonly sourceKind?: SourceKind;
  /** The manifest's `source.mode` (default `unknown`). */
  readonly mode?: IngestMode;
  /** 'open' (default): problems are in the summary, never thrown. 'closed': the node throws {@link IngestNodeError}. */
  readonly failMode?: 'open' | 'closed';
  readonly durability?: 'fsync' | 'none';
  /** Unset limits take their defaults, as `ingestDocument`'s. */
  readonly limits?: Partial<IngestLimits>;
  /** The block parser: the scanner by default. */
  readonly parser?: FenceParser;
}

/** What {@link IngestNodeError} is about: no run id to ingest under, a bad document path, or (fail-closed) a failed ingest. */
export type IngestNodeErrorCode = 'missing_run_id' | 'invalid_doc_path' | 'ingest_failed';

/** Thrown by the node for misuse, and under `failMode: 'closed'` for a failed ingest (carrying its summary). */
export class IngestNodeError extends CodedError<IngestNodeErrorCode> {
  override readonly name = 'IngestNodeError';
  constructor(
    code: IngestNodeErrorCode,
    message: string,
    /** The ingest's summary, under `ingest_failed`. */
    readonly summary?: IngestNodeSummary,
  ) {
    super(code, message);
  }
}

/** The update the node returns: the summary under the state key `ingest`. */
export interface IngestNodeUpdate {
  readonly ingest: IngestNodeSummary;
}

/** A LangGraph node: reads the answer from the state, saves and ingests it, returns `{ ingest: summary }`. */
export type IngestNode = (
  state: Readonly<Record<string, unknown>>,
  config?: LangGraphRunnableConfig,
) => Promise<IngestNodeUpdate>;

const DEFAULT_NODE_ID = 'ingest';

/**
 * A node for a LangGraph `StateGraph`, placed after the model node: saves the text of the last AI message of
 * `state.messages` (or of `options.key`) at `docPath` and ingests it as the graph runtime's post-write ingest
 * does (files, manifest, events, records), returning the summary under the state key `ingest`. Fail-open: an
 * ingest that fails is reported in the summary, never thrown, unless `failMode` is `closed`.
 */
export function ingestNode(options: IngestNodeOptions): IngestNode {
  // Misuse is refused when the node is made, with the ingest's own errors.
  if (options.runId !== undefined) parseRunId(options.runId, 'runId');
  if (options.nodeId !== undefined) parseNodeId(options.nodeId, 'nodeId');
  if (typeof options.docPath === 'string') checkedDocPath(options.docPath);
  const key = options.key ?? 'messages';

  return async (state, config) => {
    const runId = runIdOf(options, config);
    const nodeId = nodeIdOf(options, config);
    const docPath = checkedDocPath(
      typeof options.docPath === 'function'
        ? options.docPath({ runId, nodeId })
        : (options.docPath ?? `docs/${runId}/${nodeId}.md`),
    );
    const ids = { runId, nodeId, docPath };
    const answer = answerText(state[key]);
    const summary = answer.found
      ? await ingestAnswer(options, ids, answer.text)
      : nothingToIngestSummary(ids, answer.reason);
    if (options.failMode === 'closed' && failed(summary)) {
      throw new IngestNodeError(
        'ingest_failed',
        `ingest of ${docPath} failed: ${String(summary.rejected)} block(s) rejected${summary.problem === undefined ? '' : `, ${summary.problem}`}`,
        summary,
      );
    }
    return { ingest: summary };
  };
}

function runIdOf(options: IngestNodeOptions, config: LangGraphRunnableConfig | undefined): string {
  if (options.runId !== undefined) return options.runId;
  const threadId: unknown = config?.configurable?.['thread_id'];
  if (typeof threadId === 'string' || typeof threadId === 'number') {
    return parseRunId(String(threadId), 'configurable.thread_id (the run id when ingestNode has no runId)');
  }
  throw new IngestNodeError(
    'missing_run_id',
    'ingestNode has no run id to ingest under: pass ingestNode({ runId }), or invoke the graph with { configurable: { thread_id } } (the thread id is the run id)',
  );
}

function nodeIdOf(options: IngestNodeOptions, config: LangGraphRunnableConfig | undefined): string {
  if (options.nodeId !== undefined) return options.nodeId;
  const name: unknown = config?.metadata?.['langgraph_node'];
  if (typeof name !== 'string') return DEFAULT_NODE_ID;
  return parseNodeId(name, 'the graph node name (the node id when ingestNode has no nodeId)');
}

function checkedDocPath(docPath: string): string {
  const judged = resolveOutputPath(docPath, 'docPath');
  if (!judged.ok) throw new IngestNodeError('invalid_doc_path', judged.message);
  // audits/ documents are never ingested (spec ingest.md, project layout): the node would save and ingest nothing.
  if (judged.path.startsWith('audits/')) {
    throw new IngestNodeError(
      'invalid_doc_path',
      `docPath ${JSON.stringify(docPath)} is under audits/, whose documents are not ingested; name a file under docs/`,
    );
  }
  return judged.path;
}

function failed(summary: IngestNodeSummary): boolean {
  return summary.status === 'failed' || summary.problems.length > 0 || summary.rejected > 0;
}
