import { CodedError } from '../../project/index.js';
/** Why observing or registering failed as a whole; every code is handled by the engine's edge. */
export type ObserveErrorCode =
  /** `register_artefacts` was called with `paths` that is not an array of strings. */
  | 'invalid_paths'
  /** The confined writer refused to write a snapshot into the run folder. */
  | 'snapshot_write_failed'
  /** A stored snapshot cannot be read, is not JSON or is not a snapshot. */
  | 'snapshot_unreadable';

/** A failure of register_artefacts or declared-versus-observed, with a `code` and a message that says what to do. */
export class ObserveError extends CodedError<ObserveErrorCode> {
  override readonly name = 'ObserveError';
}
