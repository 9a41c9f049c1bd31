import { redactJson, runStatePath } from '../../project/index.js';
import type { ConfinedRoot } from '../../workspace/index.js';
import { WorkflowStateError } from './workflow-state-error.js';
import type { WorkflowState } from './workflow-state-schema.js';

/** How state files are written: `fsync` (default) survives a power cut, `none` only a process kill. */
export type StateDurability = 'fsync' | 'none';

/** Writes a file of the run through the confined writer (temp file + rename); a refusal is thrown. */
export async function writeRunFile(
  root: ConfinedRoot,
  relative: string,
  text: string,
  durability: StateDurability,
): Promise<void> {
  const outcome = await root.write(relative, new TextEncoder().encode(text), { durability });
  if (outcome.status === 'refused') {
    throw new WorkflowStateError(
      'state_write_failed',
      `${relative} was not written: ${outcome.code}: ${outcome.message}`,
    );
  }
}

/** Writes a workflow's state.json atomically; a reader sees the old state or the new one, never a part. */
export async function writeWorkflowStateFile(
  root: ConfinedRoot,
  state: WorkflowState,
  durability: StateDurability,
): Promise<void> {
  await writeRunFile(
    root,
    runStatePath(state.run_id),
    `${JSON.stringify(redactJson(state), null, 2)}\n`,
    durability,
  );
}
