import type { ProjectRef } from '../../store/index.js';
import type { ProjectConfig } from '../../config/index.js';
import type { NodeId, RunId } from '../../project/index.js';
import type { RemoteStoreSettings } from '../../remote/index.js';

/** One pass of a step, as the observer sees it: where its declared-versus-observed window starts. */
export interface ObservedPass {
  readonly projectDir: ProjectRef;
  readonly runId: RunId;
  readonly step: NodeId;
  /** 1-based pass of a loop or ralph step; absent for an action step. */
  readonly pass?: number;
  /** When the pass started (`step_started_at` of the state). */
  readonly startedAt: string;
  /** The files registered in the run so far, project-relative. */
  readonly artefacts: readonly string[];
  /**
   * The paths claimed during this pass (state.json `step_artefacts`: registered or re-registered), what the
   * observed changes are compared with; kept in the state, so it survives a restart.
   */
  readonly claimed: readonly string[];
}

/** Declared versus observed for one pass (spec workflow-mcp.md, "Declared versus observed"). */
export interface WorkflowReconciliation {
  /** Files created, modified or deleted during the pass that were not registered. */
  readonly unregistered: readonly string[];
  /** Registered paths that did not change during the pass (or no longer exist). */
  readonly phantom: readonly string[];
}

/** What {@link WorkflowObserver.stepEnding} found: the reconciliation, and what `require_registration` blocks on. */
export interface EndedPass extends WorkflowReconciliation {
  /**
   * The unregistered paths the agent can still register (deletions cannot be); `require_registration` refuses
   * the advance while this is non-empty. Left out: every `unregistered` path blocks.
   */
  readonly pathsToRegister?: readonly string[];
}

/**
 * The seam where declared-versus-observed hooks in; every method is optional and the engine works without an
 * observer. By default the engine uses `createWorkflowObserver()` (snapshots in the run folder).
 */
export interface WorkflowObserver {
  /**
   * A pass starts (under the run's state lock, just before the state that starts it is written): take the
   * snapshot its window starts from. A failure is reported on stderr; the pass then has no reconciliation.
   */
  stepStarted?(pass: ObservedPass): Promise<void>;
  /**
   * The agent is ending the pass (`workflow_advance`, before anything is written): compare with the
   * snapshot; with `require_registration`, unregistered files make the engine refuse the advance.
   */
  stepEnding?(pass: ObservedPass): Promise<EndedPass | undefined>;
  /** The reconciliation so far, for `workflow_status` (read-only). */
  observe?(pass: ObservedPass): Promise<WorkflowReconciliation | undefined>;
}

/** What the engine's calls are given by their host (the MCP server, the CLI, tests); all optional. */
export interface WorkflowEngineDeps {
  /** The folder a workflow given as a path is relative to (default: the project). */
  readonly cwd?: string;
  /**
   * The environment `ARTIFACT_INGEST` is read from (default: none, so the flag falls to the config), and
   * `ARTIFACT_INGEST_HOST`, the `host` a new run records (default: `process.env`; unset: `os.hostname()`).
   */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** The loaded project config: `ingest.enabled`, limits and durability (default: the ingest off). */
  readonly config?: ProjectConfig;
  /** Declared versus observed; default `createWorkflowObserver()` unless `snapshots` is false. */
  readonly observer?: WorkflowObserver;
  /** False: no default observer, so no snapshot, no reconciliation, no `require_registration` gate (tests, huge repos). */
  readonly snapshots?: boolean;
  /** State, document, manifest and record durability (default: the config's `ingest.durability`, else fsync). */
  readonly durability?: 'fsync' | 'none';
  /** Clock of the state's times and the summary (tests). */
  readonly now?: () => Date;
  /** How long a call waits for another holder of the run's state lock (default 5 s). */
  readonly lockWaitMs?: number;
  /**
   * The remote (`remote:` of the config, resolved by the host): a start, a step that ends, an abort and a submission
   * push the run there, fail-open (spec storage.md Part 2, local first). Default: none.
   */
  readonly remote?: RemoteStoreSettings;
}
