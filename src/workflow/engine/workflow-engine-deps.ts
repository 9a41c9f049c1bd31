import type { ProjectConfig } from '../../config/index.js';
import type { NodeId, RunId } from '../../project/index.js';

/** One pass of a step, as the observer sees it: where its declared-versus-observed window starts. */
export interface ObservedPass {
  readonly projectDir: string;
  readonly runId: RunId;
  readonly step: NodeId;
  /** 1-based pass of a loop or ralph step; absent for an action step. */
  readonly pass?: number;
  /** When the pass started (`step_started_at` of the state). */
  readonly startedAt: string;
  /** The files registered in the run so far, project-relative. */
  readonly artefacts: readonly string[];
}

/** Declared versus observed for one pass (spec workflow-mcp.md, "Declared versus observed"). */
export interface WorkflowReconciliation {
  /** Files created, modified or deleted during the pass that were not registered. */
  readonly unregistered: readonly string[];
  /** Registered paths that did not change during the pass (or no longer exist). */
  readonly phantom: readonly string[];
}

/**
 * The seam where declared-versus-observed hooks in (`src/workflow/observe/`, next); every method is
 * optional and the engine works without an observer.
 */
export interface WorkflowObserver {
  /** A pass started (after its state was written): take the snapshot its window starts from. */
  stepStarted?(pass: ObservedPass): Promise<void>;
  /**
   * The agent is ending the pass (`workflow_advance`, before anything is written): compare with the
   * snapshot; with `require_registration`, unregistered files make the engine refuse the advance.
   */
  stepEnding?(pass: ObservedPass): Promise<WorkflowReconciliation | undefined>;
  /** The reconciliation so far, for `workflow_status` (read-only). */
  observe?(pass: ObservedPass): Promise<WorkflowReconciliation | undefined>;
}

/** What the engine's calls are given by their host (the MCP server, the CLI, tests); all optional. */
export interface WorkflowEngineDeps {
  /** The folder a workflow given as a path is relative to (default: the project). */
  readonly cwd?: string;
  /** The environment `ARTIFACT_INGEST` is read from (default: none, so the flag falls to the config). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** The loaded project config: `ingest.enabled`, limits and durability (default: the ingest off). */
  readonly config?: ProjectConfig;
  readonly observer?: WorkflowObserver;
  /** State, document, manifest and record durability (default: the config's `ingest.durability`, else fsync). */
  readonly durability?: 'fsync' | 'none';
  /** Clock of the state's times and the summary (tests). */
  readonly now?: () => Date;
  /** How long a call waits for another holder of the run's state lock (default 5 s). */
  readonly lockWaitMs?: number;
}
