import { CodedError } from '../../project/index.js';
/** Why a lineage call (timeline, replay, checkout, log, verify) could not answer. */
export type LineageErrorCode =
  | 'no_recorded_run'
  | 'step_out_of_range'
  | 'invalid_time'
  | 'target_not_empty'
  | 'target_inside_project'
  | 'missing_object'
  | 'corrupt_object'
  | 'unsafe_record_path'
  | 'unknown_path';

/** An expected refusal of a lineage call, with a `code` and a message that says what to do; the CLI exits 1 on it. */
export class LineageError extends CodedError<LineageErrorCode> {
  override readonly name = 'LineageError';

  constructor(fields: { code: LineageErrorCode; message: string; cause?: unknown }) {
    super(fields.code, fields.message, { cause: fields.cause });
  }
}
