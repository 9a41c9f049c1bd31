/**
 * The report of one run as plain JSON data (`artifact-ingest report RUN_ID --json`): what the HTML page and the
 * OpenLineage export are both made from. Every string in it is data from the run's records, never markup.
 */
export interface RunReport {
  /** The shape of this object; bumped on an incompatible change. */
  readonly reportVersion: 1;
  readonly run: ReportRunHeader;
  /** Node executions (graph), step passes (workflow) or ingests (`ingest --run-id`), in the order they started. */
  readonly steps: readonly ReportStep[];
  /** The run's contract artifacts under `.agent/artifacts/<run_id>/`, by type. */
  readonly contracts: readonly ReportContract[];
  /** `verify`'s verdict on the run's records, objects and workspace files; null when read with `checks: false`. */
  readonly verify: ReportVerify | null;
  /** What the report left out to stay small, and where to see it instead. */
  readonly limits: ReportLimits;
  /** Records, traces or files the report could not read; the report shows the rest. */
  readonly problems: readonly ReportProblem[];
  /** The run's trace ids and git commits (docs/traces.md, docs/git.md). */
  readonly links: ReportLinks;
}

/** Where else a run can be seen: an observability backend (its trace ids) and git (its commits). */
export interface ReportLinks {
  /** The trace id `export otlp RUN_ID` and `run --otlp` give the run (derived from its id: the same every time). */
  readonly traceId: string;
  /** Trace ids live spans recorded when the run started under a registered OpenTelemetry SDK (a resume adds one). */
  readonly liveTraceIds: readonly string[];
  /** The commits of `swarm/run-<run_id>` (`export git`), oldest first; none when the run was not exported there. */
  readonly commits: readonly ReportCommit[];
}

/** A commit of the run's branch. */
export interface ReportCommit {
  readonly commit: string;
  /** Its Task-Id trailer; null for the commit of the workspace before the run. */
  readonly taskId: string | null;
  readonly subject: string;
}

/** The header of a run: what ran, how it ended, how long it took and what it used. */
export interface ReportRunHeader {
  readonly runId: string;
  /** `graph`: a run of the runtime; `workflow`: a workflow driven over MCP; `ingest`: made by `ingest --run-id`. */
  readonly kind: 'graph' | 'workflow' | 'ingest';
  /** The graph or workflow definition: its name, the sha256 hex of its text, where it came from. */
  readonly definition: {
    readonly name: string;
    readonly hash: string;
    readonly source: string | null;
  } | null;
  /** The ingest mode (`team`, `ralph`, ...), or null when the run has none. */
  readonly mode: string | null;
  /** The run's status as its state says it (`completed`, `failed`, `running`, `complete`, `aborted`). */
  readonly status: string;
  /** The terminal state the run declared (terminal.json), or null when it declared none. */
  readonly terminal: {
    readonly state: string;
    readonly artifact: string | null;
    readonly reason: string;
    readonly at: string;
  } | null;
  readonly startedAt: string | null;
  readonly finishedAt: string | null;
  readonly durationMs: number | null;
  /** The run's inputs, each value as text (JSON for a workflow input that is not a string). */
  readonly inputs: Readonly<Record<string, string>>;
  /**
   * Whether the ingest was on: a graph run's state says; a workflow's traces and manifests say (on when any
   * pass's document was ingested, off when documents were written and none was); null when nothing says (no
   * document written yet).
   */
  readonly ingestEnabled: boolean | null;
  /** How many nodes could run at once (the `run.started` event; 1 for a workflow), or null when unknown. */
  readonly concurrency: number | null;
  /** Budgets used and their limits; null when the run kept none. */
  readonly budgets: ReportBudgets | null;
  /** Steps by status, over every node of the definition (not-run nodes count as `pending` or `skipped`). */
  readonly counts: Readonly<Record<ReportStepStatus, number>>;
}

/** Budgets used and their limits (absent limit: unlimited). */
export interface ReportBudgets {
  readonly agentCalls: number;
  readonly maxAgentCalls: number | null;
  readonly minutes: number | null;
  readonly maxMinutes: number | null;
  readonly maxFixAttempts: number | null;
  /** Which budget was exceeded, when one was. */
  readonly exceeded: string | null;
}

/** A step's status in the report. */
export type ReportStepStatus = 'completed' | 'failed' | 'skipped' | 'pending' | 'running';

/** One node execution, workflow step pass or ingest, with everything it wrote. */
export interface ReportStep {
  /** Unique within the report (`plan`, `plan#2` for a second attempt), usable as an HTML id after escaping. */
  readonly key: string;
  /** The node or step id (a workflow loop pass: its task id). */
  readonly id: string;
  readonly kind: 'node' | 'step' | 'ingest';
  readonly status: ReportStepStatus;
  /** The agent's name, or null (a `write_file` node, a not-run node). */
  readonly agent: string | null;
  readonly attempt: number;
  /** sha256 hex of the rendered prompt or step instructions, or null. */
  readonly promptSha256: string | null;
  readonly startedAt: string | null;
  readonly finishedAt: string | null;
  readonly durationMs: number | null;
  /** 0-based row of the timeline: steps that overlap in time get different lanes. */
  readonly lane: number;
  readonly error: { readonly code: string; readonly message: string } | null;
  /** The document the step wrote and the ingest read, or null when it wrote none. */
  readonly document: ReportDocument | null;
  /** Every fenced block of the document as its manifest judged it, in document order. */
  readonly blocks: readonly ReportBlock[];
  /** Blocks of the manifest not listed in `blocks` (past `limits.maxBlocks`); absent in older reports: read 0. */
  readonly blocksOmitted?: number;
  /** Every file version the step recorded, with its diff against the previous version. */
  readonly files: readonly ReportFile[];
  /** File versions of the step not listed in `files` (past `limits.maxFiles`); absent in older reports: read 0. */
  readonly filesOmitted?: number;
  /** The step's contract verdict (ralph nodes, workflow steps with `contract:`), or null. */
  readonly contract: ReportStepContract | null;
  /** A workflow step's declared-versus-observed reconciliation, or null for a graph node. */
  readonly reconciliation: {
    readonly unregistered: readonly string[];
    readonly phantom: readonly string[];
  } | null;
}

/** A step's document: where it is, its hash and, within the report's limit, its markdown text. */
export interface ReportDocument {
  /** Project-relative, such as `docs/tasks/api.md`. */
  readonly path: string;
  readonly sha256: string;
  readonly bytes: number;
  /** The markdown text as the step wrote it (read from the object store), cut at the limit; null when unavailable. */
  readonly markdown: string | null;
  /** True when `markdown` was cut at `limits.maxDocumentBytes` or the report's total. */
  readonly truncated: boolean;
  /** Why `markdown` is null (object missing or corrupt, not UTF-8, over the report's total). */
  readonly unavailable: string | null;
}

/** One fenced block as the ingest's manifest recorded it. */
export interface ReportBlock {
  readonly index: number;
  readonly lang: string;
  readonly declaredFile: string;
  /** `workspace/...` when the path was judged safe; empty otherwise. */
  readonly workspacePath: string;
  readonly bytes: number;
  readonly sha256: string;
  readonly status: string;
  /** The reason code (`traversal`, `absolute_path`, ...), or empty for a written block. */
  readonly code: string;
  /** The whole reason line as the manifest gives it, or empty. */
  readonly reason: string;
}

/** One file version a step recorded. */
export interface ReportFile {
  /** Project-relative, such as `workspace/src/app.ts`. */
  readonly path: string;
  readonly artifactId: string;
  readonly contentHash: string;
  readonly change: 'created' | 'changed';
  readonly previous: string | null;
  readonly bytes: number;
  readonly linesAdded: number;
  readonly linesRemoved: number;
  readonly diff: ReportDiff;
}

/** A file version's line diff against its previous version, or why the report does not carry it. */
export type ReportDiff =
  | {
      readonly kind: 'text';
      /** A unified diff (jsdiff), cut at `limits.maxDiffLines` lines. */
      readonly patch: string;
      readonly truncated: boolean;
    }
  | { readonly kind: 'binary'; readonly message: string }
  | { readonly kind: 'unavailable'; readonly reason: string; readonly message: string }
  /** Left out for the report's size; `replay RUN --backward --path P` shows it. */
  | { readonly kind: 'omitted'; readonly message: string; readonly command: string };

/** A step's verdict against its contract type. */
export interface ReportStepContract {
  readonly type: string;
  /** `done`, `fix_needed` or `blocked`. */
  readonly state: string;
  readonly attempts: number;
  readonly artifact: string | null;
  readonly reason: string | null;
  readonly errors: readonly ReportFieldError[];
}

/** One field error of a refused artifact. */
export interface ReportFieldError {
  readonly path: string;
  readonly expected: string;
  readonly got: string | null;
  readonly message: string;
}

/** One contract artifact of the run and whether it validates and came through the canonical path. */
export interface ReportContract {
  readonly type: string;
  /** Project-relative, `.agent/artifacts/<run_id>/<type>.json`. */
  readonly path: string;
  /** True when the payload validates against its type. */
  readonly valid: boolean;
  readonly errors: readonly ReportFieldError[];
  /** `audit`'s findings on it (`non_canonical`, `modified`, `invalid`); empty when it is clean. */
  readonly findings: readonly { readonly code: string; readonly message: string }[];
  /** The payload as JSON text, cut at `limits.maxDocumentBytes`; null when unreadable. */
  readonly payload: string | null;
}

/** `verify`'s verdict, in short. */
export interface ReportVerify {
  /** True when verify found no error (warnings allowed). */
  readonly ok: boolean;
  readonly errors: number;
  readonly warnings: number;
  readonly objects: { readonly checked: number; readonly ok: number };
  readonly workspaceFiles: { readonly checked: number; readonly ok: number };
  /** The first problems (at most `limits.maxProblems`). */
  readonly problems: readonly {
    readonly code: string;
    readonly severity: string;
    readonly message: string;
  }[];
}

/** What was left out and the caps applied. */
export interface ReportLimits {
  /** A text diff longer than this is cut. */
  readonly maxDiffLines: number;
  /** Diffs stop being carried once their total passes this many bytes; the rest are `omitted`. */
  readonly maxDiffBytesTotal: number;
  /** A document's markdown is cut at this many bytes. */
  readonly maxDocumentBytes: number;
  /** Documents stop being carried once their total passes this many bytes. */
  readonly maxDocumentBytesTotal: number;
  readonly maxProblems: number;
  /** Most file versions listed over the report's steps; later ones are only counted (`filesOmitted`). */
  readonly maxFiles?: number;
  /** Most blocks listed over the report's steps; later ones are only counted (`blocksOmitted`). */
  readonly maxBlocks?: number;
  readonly filesOmitted?: number;
  readonly blocksOmitted?: number;
  readonly diffsOmitted: number;
  readonly diffsTruncated: number;
  readonly documentsTruncated: number;
  readonly documentsOmitted: number;
  /** The command that shows everything the report left out, such as `artifact-ingest replay RUN --backward`. */
  readonly replayCommand: string;
}

/** Something the report could not read. */
export interface ReportProblem {
  readonly code: string;
  readonly message: string;
}

/** The lineage of one path across runs: every version, who wrote it, and its diffs (`report --path P`). */
export interface PathReport {
  readonly reportVersion: 1;
  /** The project-relative path, such as `workspace/src/app.ts`. */
  readonly path: string;
  /** Oldest first. */
  readonly versions: readonly PathReportVersion[];
  readonly limits: ReportLimits;
  readonly problems: readonly ReportProblem[];
}

/** One version of a path. */
export interface PathReportVersion {
  readonly artifactId: string;
  readonly runId: string;
  readonly taskId: string;
  readonly agentId: string;
  readonly type: string;
  readonly createdAt: string;
  readonly contentHash: string;
  readonly bytes: number;
  readonly linesAdded: number;
  readonly linesRemoved: number;
  readonly previous: string | null;
  readonly diff: ReportDiff;
}
