import { redactJson, runStatePath } from '../../project/index.js';
import { StoreError } from '../../store/index.js';
import type { ProjectStore } from '../../store/index.js';
import { WorkflowStateError } from './workflow-state-error.js';
import type { WorkflowState } from '../../runs/index.js';

/** How state files are written: `fsync` (default) survives a power cut, `none` only a process kill. */
export type StateDurability = 'fsync' | 'none';

/** Writes a file of the run through the project's store (an atomic replace); a refusal is thrown. */
export async function writeRunFile(
  store: ProjectStore,
  relative: string,
  text: string,
  durability: StateDurability,
): Promise<void> {
  try {
    await store.replace(relative, text, { durability });
  } catch (error) {
    if (!(error instanceof StoreError && error.code === 'write_refused')) throw error;
    throw new WorkflowStateError(
      'state_write_failed',
      `${relative} was not written: ${error.refusal ?? error.code}: ${error.message}`,
      { cause: error },
    );
  }
}

/** Writes a workflow's state.json atomically; a reader sees the old state or the new one, never a part. */
export async function writeWorkflowStateFile(
  store: ProjectStore,
  state: WorkflowState,
  durability: StateDurability,
): Promise<void> {
  await writeRunFile(
    store,
    runStatePath(state.run_id),
    `${JSON.stringify(redactJson(state), null, 2)}\n`,
    durability,
  );
}
