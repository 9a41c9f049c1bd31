import type { ProjectRef } from '../../store/index.js';
import type { ContractType, FieldError, TerminalState } from '../../contracts/index.js';
import type { EventLevel } from '../../events/index.js';
import type { IngestLimits } from '../../config/index.js';
import type { FenceParser } from '../../project/index.js';
import type { DocumentIngestSummary, IngestMode } from '../../ingest/index.js';
import type { Agent } from '../agents/index.js';
import type { GraphDefinition } from '../graph/index.js';
import type { RunId } from '../../project/index.js';

/** A node's lifecycle in a run. */
export type NodeStatus = 'pending' | 'running' | 'completed' | 'failed' | 'skipped';

/** A run's lifecycle. */
export type RunStatus = 'running' | 'completed' | 'failed';

/** The manifest summary a node carries when its document was ingested. */
export type NodeIngestSummary = DocumentIngestSummary;

/** Where a node with `contract:` stands (spec contracts.md, "Completion detection"). */
export interface NodeContractState {
  readonly type: ContractType;
  readonly state: 'done' | 'fix_needed' | 'blocked';
  /** Agent asks of this execution (1 + fix re-asks); 1 for a command node. */
  readonly attempts: number;
  /** The artifact that satisfied (done) or blocked the contract, project-relative. */
  readonly artifact?: string;
  /** Why it is not done. */
  readonly reason?: string;
  /** The field errors of the last refused submission (at most {@link MAX_STATE_FIELD_ERRORS}). */
  readonly errors?: readonly FieldError[];
}

/** Most field errors a node's contract state keeps (the events and the fix request have them all). */
export const MAX_STATE_FIELD_ERRORS = 20;

/** A run's budgets (spec contracts.md) as state.json keeps them: the limits and what was used. */
export interface RunBudgetsState {
  readonly max_minutes?: number;
  readonly max_agent_calls?: number;
  readonly max_fix_attempts: number;
  /** Agent calls of every invocation of the run, re-asks included (a resume keeps counting). */
  readonly agent_calls: number;
  /** Wall minutes of this invocation so far (max_minutes is per invocation). */
  readonly minutes: number;
  /** The budget that ran out, if one did. */
  readonly exceeded?: string;
}

/** One node's record in state.json (snake_case on disk, like the manifest). */
export interface NodeState {
  readonly status: NodeStatus;
  readonly attempts: number;
  readonly started_at?: string;
  readonly finished_at?: string;
  /** Project-relative document path, once resolved. */
  readonly output_path?: string;
  readonly output_sha256?: string;
  /** sha256 of the rendered prompt (agent_task). */
  readonly prompt_sha256?: string;
  readonly agent?: string;
  readonly error?: { readonly code: string; readonly message: string };
  readonly ingest?: NodeIngestSummary;
  readonly contract?: NodeContractState;
}

/** `.agent/runs/<run_id>/state.json` with its transitions.jsonl applied (docs/runtime-runs.md). */
export interface RunState {
  readonly version: 1;
  readonly run_id: RunId;
  readonly status: RunStatus;
  readonly graph: { readonly name: string; readonly hash: string; readonly source: string };
  readonly mode: IngestMode;
  readonly inputs: Readonly<Record<string, string>>;
  readonly ingest_enabled: boolean;
  readonly created_at: string;
  readonly updated_at: string;
  /** In graph order. */
  readonly nodes: Readonly<Record<string, NodeState>>;
  /** Budgets and their use; absent in runs made before budgets existed. */
  readonly budgets?: RunBudgetsState;
}

/** Progress reported to the caller (the CLI draws it node by node). */
export type RunProgress =
  | { readonly type: 'node.started'; readonly nodeId: string; readonly done: number; readonly total: number }
  | {
      readonly type: 'node.completed';
      readonly nodeId: string;
      readonly done: number;
      readonly total: number;
      readonly ingest?: NodeIngestSummary;
    }
  | {
      /** A contract node is asked again with a fix request. */
      readonly type: 'node.fix_needed';
      readonly nodeId: string;
      readonly done: number;
      readonly total: number;
      /** The ask that needs the fix (1-based), and how many re-asks the node gets in all. */
      readonly attempt: number;
      readonly of: number;
      readonly reason: string;
    }
  | {
      readonly type: 'node.failed';
      readonly nodeId: string;
      readonly done: number;
      readonly total: number;
      readonly message: string;
    };

/** Options of {@link runGraph}. */
export interface RunGraphOptions {
  /**
   * The project folder (documents, workspace/ and its `.agent/` store), or a `Project`: its folder holds the
   * documents and workspace/, its store the run (lock, state, events, records, terminal state).
   */
  readonly projectDir: ProjectRef;
  readonly graph: GraphDefinition;
  /** Values of the graph's inputs (every declared input is required). */
  readonly inputs: Readonly<Record<string, string>>;
  /** Resolves an agent name (from a node, or the override) to an agent; throws ConfigError for an unknown name. */
  readonly agentFor: (name: string) => Agent;
  /** Use this agent name for every agent_task node (CLI --agent). */
  readonly agentOverride?: string;
  /** Default: `<graph name>-<UTC time to the ms>`, sanitized to the id pattern. */
  readonly runId?: string;
  /** Continue the run `runId`: completed nodes are kept, the others (re)run. */
  readonly resume?: boolean;
  /** Most nodes running at once (default 2). */
  readonly concurrency?: number;
  /** The post-write ingest hook (spec ingest.md section 6; resolved by the caller, default off). */
  readonly ingest?: {
    readonly enabled: boolean;
    readonly limits?: Partial<IngestLimits>;
    /** The block parser (`ingest.parser`); by default the scanner. */
    readonly parser?: FenceParser;
    readonly durability?: 'fsync' | 'none';
  };
  /**
   * Most bytes of the run's node documents, all together (`runtime.max_run_document_bytes`, default 256 MiB);
   * one document is bounded by `ingest.limits.maxDocumentBytes` (default 16 MiB), hook on or off.
   */
  readonly maxRunDocumentBytes?: number;
  /** CLI `--max-minutes` / `--max-agent-calls`: replace the graph's budgets of the same name. */
  readonly budgets?: { readonly maxMinutes?: number; readonly maxAgentCalls?: number };
  readonly onProgress?: (progress: RunProgress) => void;
  readonly signal?: AbortSignal;
  /** Clock, for tests. */
  readonly now?: () => Date;
}

/** The outcome of a run (or of a resume). */
export interface RunResult {
  readonly runId: RunId;
  readonly status: RunStatus;
  readonly state: RunState;
  /** Project-relative run folder. */
  readonly runDir: string;
  /** The terminal state the run declared; undefined when it was stopped (SIGINT) and stays resumable. */
  readonly terminal?: TerminalState;
}

/** Level of a runtime event, for reference. */
export type RuntimeEventLevel = EventLevel;
