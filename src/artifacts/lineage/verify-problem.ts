/** What `verifyArtifacts` found wrong; a closed union, so every switch over it is exhaustive. */
export type VerifyProblemCode =
  | 'missing_object'
  | 'corrupt_object'
  | 'workspace_modified'
  | 'workspace_missing'
  | 'workspace_not_a_file'
  | 'unsafe_record_path'
  | 'invalid_record_line'
  | 'index_missing_record'
  | 'index_unknown_record'
  | 'index_stale'
  | 'interrupted_ingest'
  | 'stale_temp_file';

/**
 * How bad a problem is: `error` for corruption and drift (a missing or corrupt object, a workspace file that is
 * not its last recorded version, an unreadable line of a run's artifacts.jsonl, a record whose path no writer
 * records (never turned into a filesystem path), an interrupted ingest whose files
 * may be on disk unrecorded), `warning` for drift of the path index, which `reindex` rebuilds from the runs, and
 * for a stale temp file (harmless bytes that the next write into its folder removes). The CLI exits 1 on an error, and with `--strict` on a warning.
 */
export type VerifySeverity = 'error' | 'warning';

/** One problem, with the record it is about when there is one. */
export interface VerifyProblem {
  readonly code: VerifyProblemCode;
  readonly severity: VerifySeverity;
  /** What is wrong and what to do about it. */
  readonly message: string;
  readonly path?: string;
  readonly contentHash?: string;
  readonly runId?: string;
  readonly artifactId?: string;
  /** `interrupted_ingest`: the node and document of the ingest, and the workspace paths it planned. */
  readonly nodeId?: string;
  readonly docPath?: string;
  readonly plannedPaths?: readonly string[];
}
