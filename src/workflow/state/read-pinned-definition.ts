import { MAX_CONFIG_FILE_BYTES } from '../../config/index.js';
import { describeError, sha256Hex } from '../../project/index.js';
import { StoreError, usingProject } from '../../store/index.js';
import type { ProjectRef } from '../../store/index.js';
import type { PinnedDefinition } from './create-workflow-state.js';
import { WorkflowStateError } from './workflow-state-error.js';
import type { WorkflowState } from '../../runs/index.js';

/**
 * Reads the definition pinned in a run (`definition_path`, a key of the project's store) and checks it still has
 * `definition_hash`, so a resumed workflow runs exactly what it started with; throws `definition_mismatch` naming
 * the file otherwise. The pinned copy is the run's own file: a symlink there is refused, never followed, a FIFO or
 * device is refused before any read, and a copy over the definition size limit is not read.
 */
export async function readPinnedDefinition(
  project: ProjectRef,
  state: WorkflowState,
): Promise<PinnedDefinition> {
  const relative = state.definition_path;
  const cannotRead = (reason: string, cause?: unknown): WorkflowStateError =>
    new WorkflowStateError(
      'definition_mismatch',
      `cannot read the pinned definition ${relative} of run ${state.run_id}: ${reason}; the run cannot continue, start a new one`,
      { cause },
    );
  let bytes: Uint8Array | undefined;
  try {
    bytes = await usingProject(project, ({ store }) =>
      store.read(relative, { maxBytes: MAX_CONFIG_FILE_BYTES }),
    );
  } catch (error) {
    throw cannotRead(reasonOf(error), error);
  }
  if (bytes === undefined) throw cannotRead('it is gone');
  let text: string;
  try {
    // As a definition file is read: a byte order mark dropped, text that is not UTF-8 refused.
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch (error) {
    throw cannotRead('it is not valid UTF-8', error);
  }
  if (sha256Hex(text) !== state.definition_hash) {
    throw new WorkflowStateError(
      'definition_mismatch',
      `${relative} no longer has the hash pinned in run ${state.run_id} (it was edited); the run cannot continue, start a new one`,
    );
  }
  return { name: state.workflow, hash: state.definition_hash, text };
}

/** Why the store would not give the pinned copy, in the words a reader of the run needs. */
function reasonOf(error: unknown): string {
  if (!(error instanceof StoreError)) return describeError(error);
  switch (error.code) {
    case 'too_large':
      return `it is larger than the definition size limit (definition files are limited to ${String(MAX_CONFIG_FILE_BYTES)} bytes)`;
    case 'not_a_file':
      return error.refusal === 'symlink' ? 'it is a symbolic link' : error.message;
    case 'malformed_key':
      return `${error.message}: a pinned definition is a file of the run's folder`;
    case 'write_refused':
      return error.message;
  }
}
