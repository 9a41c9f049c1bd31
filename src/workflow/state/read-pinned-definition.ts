import path from 'node:path';
import { readConfigText } from '../../config/index.js';
import { describeError, sha256Hex } from '../../project/index.js';
import type { PinnedDefinition } from './create-workflow-state.js';
import { WorkflowStateError } from './workflow-state-error.js';
import type { WorkflowState } from './workflow-state-schema.js';

/**
 * Reads the definition pinned in a run (`definition_path`) and checks it still has `definition_hash`, so a
 * resumed workflow runs exactly what it started with; throws `definition_mismatch` naming the file otherwise.
 * The pinned copy is the run's own file: a symlink there is refused, never followed (O_NOFOLLOW), a FIFO or device
 * is refused before any read, and at most the definition size limit is read.
 */
export async function readPinnedDefinition(
  projectDir: string,
  state: WorkflowState,
): Promise<PinnedDefinition> {
  const relative = state.definition_path;
  let text: string | undefined;
  try {
    text = await readConfigText(path.join(projectDir, relative), { followSymlink: false });
  } catch (error) {
    const reason =
      (error as NodeJS.ErrnoException).code === 'ELOOP' ? 'it is a symbolic link' : describeError(error);
    throw new WorkflowStateError(
      'definition_mismatch',
      `cannot read the pinned definition ${relative} of run ${state.run_id}: ${reason}; the run cannot continue, start a new one`,
      { cause: error },
    );
  }
  if (text === undefined) {
    throw new WorkflowStateError(
      'definition_mismatch',
      `cannot read the pinned definition ${relative} of run ${state.run_id}: it is gone; the run cannot continue, start a new one`,
    );
  }
  if (sha256Hex(text) !== state.definition_hash) {
    throw new WorkflowStateError(
      'definition_mismatch',
      `${relative} no longer has the hash pinned in run ${state.run_id} (it was edited); the run cannot continue, start a new one`,
    );
  }
  return { name: state.workflow, hash: state.definition_hash, text };
}
