/**
 * What the trace export needs of a run, as the run recorded it: its header and, per node execution or step pass,
 * times, agent, error, document, the ingest's blocks and the file versions recorded. The shape is a subset of
 * the report's `RunReport` (so a report is one), plus what only the events say (the ingest's times) and the
 * agent call's model and token usage where an agent reports them.
 */
export interface RecordedRun {
  readonly run: {
    readonly runId: string;
    readonly kind: 'graph' | 'workflow' | 'ingest';
    readonly definition: { readonly name: string } | null;
    /** As the run's state says it: `completed`, `failed`, `running`, `complete`, `aborted`. */
    readonly status: string;
    readonly startedAt: string | null;
    readonly finishedAt: string | null;
    /** The machine the run ran on, when its state says. */
    readonly host?: string | null;
  };
  /** In the order they started. */
  readonly steps: readonly RecordedStep[];
}

/** One node execution (graph), step pass (workflow) or ingest (`ingest --run-id`). */
export interface RecordedStep {
  /** Unique within the run (`plan`, `plan#2`). */
  readonly key: string;
  readonly id: string;
  readonly kind: 'node' | 'step' | 'ingest';
  /** `completed`, `failed`, `skipped`, `pending` or `running`. */
  readonly status: string;
  /** The agent's name, or null (a `write_file` node, an outside agent's workflow step). */
  readonly agent: string | null;
  readonly attempt: number;
  readonly promptSha256: string | null;
  readonly startedAt: string | null;
  readonly finishedAt: string | null;
  readonly error: { readonly code: string; readonly message: string } | null;
  readonly document: { readonly path: string; readonly sha256: string; readonly bytes: number } | null;
  readonly blocks: readonly RecordedBlock[];
  /** Blocks of the manifest not listed in `blocks`; absent: 0. */
  readonly blocksOmitted?: number;
  readonly files: readonly RecordedFile[];
  /** When the ingest of the step's document started and ended, and the document it read (its events say). */
  readonly ingest?: {
    readonly startedAt: string;
    readonly finishedAt: string | null;
    readonly document?: string | null;
  } | null;
  /** The agent call's model and token usage, where the agent reported them. */
  readonly agentCall?: AgentCallUsage | null;
}

/** One fenced block as the ingest's manifest judged it. */
export interface RecordedBlock {
  readonly declaredFile: string;
  /** `workspace/...` when the path was judged safe; empty otherwise. */
  readonly workspacePath: string;
  readonly bytes: number;
  readonly sha256: string;
  /** `written`, `skipped` or `rejected`. */
  readonly status: string;
  /** The reason code (`traversal`, ...), or empty. */
  readonly code: string;
}

/** One file version a step recorded. */
export interface RecordedFile {
  readonly path: string;
  readonly artifactId: string;
  readonly contentHash: string;
  readonly bytes: number;
}

/** What an agent reported of its call. */
export interface AgentCallUsage {
  readonly provider?: string;
  readonly requestModel?: string;
  readonly responseModel?: string;
  readonly inputTokens?: number;
  readonly outputTokens?: number;
}
