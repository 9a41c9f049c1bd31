import { CodedError } from '../../project/index.js';
/** Why a run could not start, resume or keep its records; the CLI prints `message` and exits non-zero. */
export type RunErrorCode =
  | 'not_a_graph_run'
  | 'run_exists'
  | 'run_locked'
  | 'run_dir_unusable'
  | 'graph_changed'
  | 'inputs_changed'
  | 'state_unreadable'
  | 'state_write_failed';

/** A run-level failure (not a node's): the run's folder, lock or state is not usable as asked. */
export class RunError extends CodedError<RunErrorCode> {
  override readonly name = 'RunError';
}
