import { ConfigError } from '../../config/index.js';

/** Why a workflow reference names nothing the engine will load. */
export type WorkflowReferenceProblem =
  /** Not a built-in and not a YAML file under workflows/ inside the project, whatever (if anything) is there. */
  | 'not_in_project'
  /** A name with no `workflows/<name>.yaml` and no built-in. */
  | 'unknown_name'
  /** A path under workflows/ where nothing is. */
  | 'missing_file';

/**
 * A workflow reference that names no definition: a `ConfigError` (so every adapter treats it as one) whose
 * message is the one sentence that says what to name instead, with no file quoted.
 */
export class WorkflowReferenceError extends ConfigError {
  readonly problem: WorkflowReferenceProblem;

  constructor(problem: WorkflowReferenceProblem, source: string, sentence: string) {
    super(source, [{ path: '', message: sentence }]);
    this.problem = problem;
    this.message = sentence;
  }
}
