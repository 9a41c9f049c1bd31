import type { VerifyProblemCode } from '../artifacts/index.js';

/** How bad a verify problem is: an error (corruption, drift, unreadable records) or a warning (a stale index). */
export type VerifySeverity = 'error' | 'warning';

/**
 * The severity of each verify problem, until the artifacts library reports it itself: errors fail `verify`
 * (exit 1, as `git fsck` does); warnings fail it only with `--strict`.
 */
export const VERIFY_SEVERITY: Readonly<Record<VerifyProblemCode, VerifySeverity>> = {
  missing_object: 'error',
  corrupt_object: 'error',
  workspace_modified: 'error',
  workspace_missing: 'error',
  workspace_not_a_file: 'error',
  invalid_record_line: 'error',
  // The index is derived data: 'artifact-ingest reindex' rebuilds it from the records, losing nothing.
  index_missing_record: 'warning',
  index_unknown_record: 'warning',
};
