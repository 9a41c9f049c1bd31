import { CodedError } from '../project/index.js';

/** Why `export git` (or reading a run's commits) stopped; every code names what to fix. */
export type GitErrorCode =
  | 'git_missing'
  | 'git_too_old'
  | 'git_failed'
  | 'not_a_git_repo'
  | 'invalid_ref_name'
  | 'ref_collision'
  | 'ref_moved'
  | 'unsafe_record_path';

/** An error of the git export, as readonly data with a string `code` (exit 2 for set-up, 1 for the work). */
export class GitError extends CodedError<GitErrorCode> {
  override readonly name = 'GitError';
}
