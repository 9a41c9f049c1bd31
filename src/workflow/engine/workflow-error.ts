import { CodedError } from '../../project/index.js';
import { ConfigError } from '../../config/index.js';
import { InvalidIdError, UnknownRunError } from '../../project/index.js';
import { ObserveError } from '../observe/index.js';
import type { ObserveErrorCode } from '../observe/index.js';
import { WorkflowStateError } from '../state/index.js';
import type { WorkflowStateErrorCode } from '../state/index.js';

/** The spec's sentence for a call that needs a running workflow when none runs (seed 000). */
export const NOT_STARTED_MESSAGE = 'Workflow not started. Call workflow_start first.';

/** Why an engine call was refused; every refusal changes nothing (no state, no document, no event). */
export type WorkflowErrorCode =
  /** No workflow is running in the project and the call gave no `run_id`. */
  | 'not_started'
  /** Several workflows are running and the call gave no `run_id`. */
  | 'several_running'
  /** No definition by that name in `workflows/` or the built-ins, and no such file. */
  | 'unknown_workflow'
  /** The definition was found but does not validate. */
  | 'invalid_workflow'
  /** A malformed argument: a `run_id` that is not an id, `inputs` that are not a mapping. */
  | 'invalid_request'
  /** `workflow_start` without an input the definition declares. */
  | 'missing_input'
  /** `workflow_start` with an input the definition does not declare. */
  | 'unknown_input'
  /** The run is `complete`, `aborted` or `failed`: it cannot be advanced or aborted. */
  | 'not_running'
  /** The step saves its output (`save_as`) and `workflow_advance` came without one. */
  | 'output_required'
  /** The next step cannot start with the values so far (a loop's `over` is not a list, a template has no value). */
  | 'step_blocked'
  /** The step has `require_registration: true` and files it changed are not registered. */
  | 'registration_required'
  /** The step's document could not be written (the confined writer refused it, or I/O failed). */
  | 'output_not_written';

/** A refused engine call: a `code` from {@link WorkflowErrorCode} and a message that says what to do. */
export class WorkflowError extends CodedError<WorkflowErrorCode> {
  override readonly name = 'WorkflowError';
}

/**
 * Every code an engine call can fail with: its own, the state store's, the observer's (a damaged start
 * snapshot: `snapshot_unreadable`), `unknown_run` (a `run_id` with no folder) and `invalid_config` (an `ARTIFACT_INGEST` value that cannot be read); what adapters map.
 */
export type WorkflowEngineErrorCode =
  WorkflowErrorCode | WorkflowStateErrorCode | ObserveErrorCode | 'unknown_run' | 'invalid_config';

/** The code of an error an engine call threw, or undefined for an unexpected one (a bug or an I/O failure). */
export function workflowErrorCodeOf(error: unknown): WorkflowEngineErrorCode | undefined {
  if (error instanceof WorkflowError || error instanceof WorkflowStateError) return error.code;
  if (error instanceof ObserveError) return error.code;
  if (error instanceof UnknownRunError || error instanceof ConfigError) return error.code;
  return undefined;
}

/** Turns an invalid `run_id` into `invalid_request`; everything else passes as it is. */
export function asRequestError(error: unknown): unknown {
  if (error instanceof InvalidIdError) {
    return new WorkflowError('invalid_request', error.message, { cause: error });
  }
  return error;
}
