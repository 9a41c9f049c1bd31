import { hasRunFolder } from '../artifacts/index.js';
import { parseRunId, UnknownRunError } from '../project/index.js';
import type { RunId } from '../project/index.js';
import type { ProjectRef } from '../store/index.js';

/**
 * Checks a run id given on the command line and that the project has that run, so every command refuses an
 * unknown run with the same {@link UnknownRunError} (exit 2).
 */
export async function resolveRunId(project: ProjectRef, text: string, what = 'run id'): Promise<RunId> {
  const runId = parseRunId(text, what);
  if (!(await hasRunFolder(project, runId))) throw new UnknownRunError(runId);
  return runId;
}
