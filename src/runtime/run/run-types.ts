import type { RemoteStoreSettings } from '../../remote/index.js';
import type { NodeIngestSummary, RunState, RunStatus } from '../../runs/index.js';
import type { ProjectRef } from '../../store/index.js';
import type { TerminalState } from '../../contracts/index.js';
import type { EventLevel } from '../../events/index.js';
import type { IngestLimits } from '../../config/index.js';
import type { FenceParser } from '../../project/index.js';
import type { Agent } from '../agents/index.js';
import type { GraphDefinition } from '../graph/index.js';
import type { RunId } from '../../project/index.js';

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
  /**
   * Default: `<graph name>-<UTC time to the ms>`, sanitized to the id pattern. A `RunId` (the CLI passes the one
   * it parsed) or its text: `runGraph` is the library's edge and checks it once there (a JavaScript caller's
   * string carries no brand); inside the run it travels as a `RunId` only.
   */
  readonly runId?: RunId | string;
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
  /**
   * Where `ARTIFACT_INGEST_HOST` (the `host` a new run records in place of `os.hostname()`) is read from; default
   * `process.env`. Only the host is read from it: agents and command nodes get their environment as before.
   */
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly onProgress?: (progress: RunProgress) => void;
  readonly signal?: AbortSignal;
  /**
   * The remote (`remote:` of the config, resolved by the caller): what the run keeps is pushed there in the
   * background at each node's end and at the run's end, never failing or stalling the run; what could not be
   * pushed stays in `.agent/outbox/` for `artifact-ingest push` (spec storage.md Part 2).
   */
  readonly remote?: RemoteStoreSettings;
  /**
   * Export the run to git as it ends (`git: { export: true }` of the config, docs/git.md): into `repo`, or the
   * project's work tree; fail-open, a failure is a WARNING `git.export_failed` event and never fails the run.
   */
  readonly gitExport?: { readonly repo?: string | undefined };
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
