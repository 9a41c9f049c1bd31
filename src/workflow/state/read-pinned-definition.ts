import path from 'node:path';
import { describeError, sha256Hex } from '../../project/index.js';
import type { PinnedDefinition } from './create-workflow-state.js';
import { WorkflowStateError } from './workflow-state-error.js';
import type { WorkflowState } from './workflow-state-schema.js';
import { readRegularFile } from '../../workspace/index.js';

/**
 * Reads the definition pinned in a run (`definition_path`) and checks it still has `definition_hash`, so a
 * resumed workflow runs exactly what it started with; throws `definition_mismatch` naming the file otherwise.
 */
export async function readPinnedDefinition(
  projectDir: string,
  state: WorkflowState,
): Promise<PinnedDefinition> {
  const relative = state.definition_path;
  let text: string;
  try {
    text = await readRegularFile(path.join(projectDir, relative), 'utf8');
  } catch (error) {
    throw new WorkflowStateError(
      'definition_mismatch',
      `cannot read the pinned definition ${relative} of run ${state.run_id}: ${describeError(error)}; the run cannot continue, start a new one`,
      { cause: error },
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
