import { CodedError } from '../project/index.js';
/** Why a call on a project store failed. */
export type StoreErrorCode =
  /** A key that is not a plain path below `.agent/` (misuse). */
  | 'malformed_key'
  /** The key names a folder, a symlink, a FIFO or a file with two names: nothing is read through it. */
  | 'not_a_file'
  /** The store would not write the key: a symlink or a file in the way, a folder where a file goes. */
  | 'write_refused'
  /** What the key holds is larger than the caller's limit. */
  | 'too_large';

/** A failed call on a project store, with the key it was about. */
export class StoreError extends CodedError<StoreErrorCode> {
  override readonly name = 'StoreError';
  /** The key the call was about (`.agent/...`). */
  readonly key: string;
  /**
   * For `not_a_file` and `write_refused` from the files store: what stood in the way, as the confined writer
   * names it (`symlink`, `is_a_directory`, `not_a_directory`, `not_a_regular_file`, `hard_link`, or a path rule).
   */
  readonly refusal?: string;

  constructor(fields: {
    code: StoreErrorCode;
    key: string;
    message: string;
    refusal?: string;
    cause?: unknown;
  }) {
    super(fields.code, fields.message, { cause: fields.cause });
    this.key = fields.key;
    if (fields.refusal !== undefined) this.refusal = fields.refusal;
  }
}
