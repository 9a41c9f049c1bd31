import type {
  BundleErrorCode,
  LineageErrorCode,
  ObjectStoreErrorCode,
  RunCopyErrorCode,
} from '../artifacts/index.js';
import type { ConfigError } from '../config/index.js';
import type { SubmitRefusalCode } from '../contracts/index.js';
import type { InvalidIdError, UnknownRunError } from '../project/index.js';
import type { RemoteErrorCode } from '../remote/index.js';
import type { AgentError, RunErrorCode } from '../runtime/index.js';
import type { ObserveErrorCode, WorkflowEngineErrorCode } from '../workflow/index.js';
import type { NoRemoteError } from './no-remote-error.js';
import type { UsageError } from './usage-error.js';

/** The exit codes of the CLI: 0 ok, 1 the work found problems, 2 usage or configuration, 130 interrupted. */
export type ExitCode = 0 | 1 | 2 | 130;

/**
 * Every error code the CLI can meet: the error classes' closed unions, plus `io_error` (a WorkspaceError or
 * EventLogError, whose `code` is an errno), `ingest_failed` (IngestFailedError) and `interrupted`.
 */
export type CliErrorCode =
  | UsageError['code']
  | ConfigError['code']
  | InvalidIdError['code']
  | UnknownRunError['code']
  | RunErrorCode
  | LineageErrorCode
  | BundleErrorCode
  | ObjectStoreErrorCode
  | AgentError['code']
  | WorkflowEngineErrorCode
  | ObserveErrorCode
  | SubmitRefusalCode
  | RemoteErrorCode
  | RunCopyErrorCode
  | NoRemoteError['code']
  | 'io_error'
  | 'ingest_failed'
  | 'interrupted';

/**
 * The one table from error code to exit code (docs/cli.md, "Exit codes"): a new code in any union fails the
 * type check here until it is given its exit code.
 */
export const EXIT_CODES: Readonly<Record<CliErrorCode, ExitCode>> = {
  // 2: the user can fix the command line or the configuration.
  usage: 2,
  invalid_config: 2,
  invalid_id: 2,
  unknown_run: 2,
  no_recorded_run: 2,
  not_a_graph_run: 2,
  run_exists: 2,
  run_locked: 2,
  run_dir_unusable: 2,
  graph_changed: 2,
  inputs_changed: 2,
  state_unreadable: 2,
  step_out_of_range: 2,
  invalid_time: 2,
  target_not_empty: 2,
  target_inside_project: 2,
  unknown_path: 2,
  output_exists: 2,
  output_unwritable: 2,
  missing_api_key: 2,
  // 2, workflow: the command names no run it can act on, or lacks what the step needs (docs/cli.md, "workflow").
  not_started: 2,
  several_running: 2,
  not_running: 2,
  not_a_workflow_run: 2,
  unknown_workflow: 2,
  invalid_workflow: 2,
  invalid_request: 2,
  missing_input: 2,
  unknown_input: 2,
  output_required: 2,
  invalid_paths: 2,
  // 2, the remote (docs/remote.md): none configured, its schema to create or migrate, a package to install or upgrade.
  no_remote: 2,
  schema_missing: 2,
  schema_too_new: 2,
  s3_client_missing: 2,
  bucket_missing: 2,
  // 1: the work found problems (corruption, a refused bundle, a failed agent, an I/O failure).
  state_write_failed: 1,
  missing_object: 1,
  corrupt_object: 1,
  malformed_hash: 1,
  not_a_bundle: 1,
  incomplete_bundle: 1,
  too_large: 1,
  unsafe_path: 1,
  unexpected_entry: 1,
  link_entry: 1,
  unsupported_entry: 1,
  duplicate_entry: 1,
  missing_manifest: 1,
  invalid_manifest: 1,
  unlisted_entry: 1,
  missing_file: 1,
  hash_mismatch: 1,
  invalid_records: 1,
  foreign_record: 1,
  unsafe_record_path: 1,
  project_unusable: 1,
  replay_missing: 1,
  timeout: 1,
  exit_status: 1,
  empty_reply: 1,
  spawn_failed: 1,
  http_status: 1,
  network: 1,
  bad_response: 1,
  io_error: 1,
  ingest_failed: 1,
  // 1, workflow: a well-formed call the engine refused for the work's sake; a conflict or a busy lock: retry.
  registration_required: 1,
  step_blocked: 1,
  output_not_written: 1,
  state_conflict: 1,
  state_locked: 1,
  state_invalid: 1,
  definition_mismatch: 1,
  snapshot_write_failed: 1,
  snapshot_unreadable: 1,
  // 1, submit: the payload or its write was refused (nothing written); busy: another submission, retry.
  invalid_artifact: 1,
  write_refused: 1,
  busy: 1,
  record_failed: 1,
  // 1, the remote: it did not answer (or refused the login) or failed; a run the remote holds differently; a copy busy.
  unreachable: 1,
  remote_failed: 1,
  run_diverged: 1,
  copy_busy: 1,
  // 130: stopped by a signal (128 + SIGINT), as shells report it.
  aborted: 130,
  interrupted: 130,
};

/** The exit code of an error code, from {@link EXIT_CODES}. */
export function exitCodeFor(code: CliErrorCode): ExitCode {
  return EXIT_CODES[code];
}
