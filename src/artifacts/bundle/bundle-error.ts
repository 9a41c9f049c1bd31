import { CodedError } from '../../project/index.js';
/**
 * Why a bundle was not made or not imported (docs/artifacts.md, "Run bundles", lists which side raises which).
 */
export type BundleErrorCode =
  | 'output_exists'
  | 'output_unwritable'
  | 'corrupt_object'
  | 'incomplete_bundle'
  | 'not_a_bundle'
  | 'too_large'
  | 'unsafe_path'
  | 'unexpected_entry'
  | 'link_entry'
  | 'unsupported_entry'
  | 'duplicate_entry'
  | 'missing_manifest'
  | 'invalid_manifest'
  | 'unlisted_entry'
  | 'missing_file'
  | 'hash_mismatch'
  | 'missing_object'
  | 'invalid_records'
  | 'foreign_record'
  | 'unsafe_record_path'
  | 'run_exists'
  | 'project_unusable';

/** A refused bundle or import: nothing was written; `message` says what is wrong and what to do. */
export class BundleError extends CodedError<BundleErrorCode> {
  override readonly name = 'BundleError';
  /** The archive entry or run file at fault, as the archive or the run folder spells it, when there is one. */
  readonly entry: string | undefined;

  constructor(fields: { code: BundleErrorCode; message: string; entry?: string; cause?: unknown }) {
    super(fields.code, fields.message, { cause: fields.cause });
    this.entry = fields.entry;
  }
}
