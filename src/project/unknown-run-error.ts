import { RUNS_DIR } from './project-layout.js';

/** A run id that names no run of the project: every command says it the same way (exit 2). */
export class UnknownRunError extends Error {
  override readonly name = 'UnknownRunError';
  readonly code = 'unknown_run';
  constructor(readonly runId: string) {
    super(`no run ${JSON.stringify(runId)} in ${RUNS_DIR}/; list the runs with 'artifact-ingest runs'`);
  }
}
