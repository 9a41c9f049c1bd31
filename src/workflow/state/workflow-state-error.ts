import { CodedError } from '../../project/index.js';
/** Why a workflow's state could not be created, read or changed; every code is handled by the engine's edge. */
export type WorkflowStateErrorCode =
  /** Another call changed the state since the caller read it (the compare-and-swap on `revision` failed). */
  | 'state_conflict'
  /** Another live process held the run's state lock for longer than the caller was willing to wait. */
  | 'state_locked'
  /** state.json cannot be read, is not JSON or is not a valid workflow state. */
  | 'state_unreadable'
  /** A change would produce an invalid state (or alter a field that never changes); nothing was written. */
  | 'state_invalid'
  /** The workspace writer refused to write state.json. */
  | 'state_write_failed'
  /** `createWorkflowState` was given a run id whose folder already exists. */
  | 'run_exists'
  /** The run folder exists but holds no workflow state (a graph run, or a CLI ingest's run). */
  | 'not_a_workflow_run'
  /** A folder on the way to the run (or the run folder itself) is a symlink or not a directory. */
  | 'run_dir_unusable'
  /** The pinned definition copy is missing or its content no longer has the pinned hash. */
  | 'definition_mismatch';

/** A workflow-state failure with a `code` from a closed union and a message that says what to do. */
export class WorkflowStateError extends CodedError<WorkflowStateErrorCode> {
  override readonly name = 'WorkflowStateError';
}
