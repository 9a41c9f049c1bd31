import { CodedError } from './coded-error.js';
import { RUNS_DIR } from './project-layout.js';

/** A run id that names no run of the project: every command says it the same way (exit 2). */
export class UnknownRunError extends CodedError<'unknown_run'> {
  override readonly name = 'UnknownRunError';
  constructor(readonly runId: string) {
    super(
      'unknown_run',
      `no run ${JSON.stringify(runId)} in ${RUNS_DIR}/; list the runs with 'artifact-ingest runs'`,
    );
  }
}
