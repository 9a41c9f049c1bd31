import type { ContractType, FieldError } from '../contracts/index.js';
import type { DocumentIngestSummary, IngestMode } from '../ingest/index.js';
import type { RunId } from '../project/index.js';

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
  /** The machine that created the run (`ARTIFACT_INGEST_HOST`, else its host name); a resume keeps it; absent
   *  in runs made before runs recorded their host. */
  readonly host?: string;
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
