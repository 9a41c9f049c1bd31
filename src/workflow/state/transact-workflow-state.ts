import { describeSchemaIssues } from '../../config/index.js';
import { openConfinedRoot } from '../../workspace/index.js';
import type { RunId } from '../../project/index.js';
import { acquireStateLock } from './acquire-state-lock.js';
import { readWorkflowState } from './read-workflow-state.js';
import { WorkflowStateError } from './workflow-state-error.js';
import { FIXED_STATE_FIELDS, workflowStateSchema } from './workflow-state-schema.js';
import type { WorkflowState } from './workflow-state-schema.js';
import { writeWorkflowStateFile } from './write-workflow-state.js';
import type { StateDurability } from './write-workflow-state.js';

/** The next state a change returns: the whole state; `revision` and `updated_at` are set by the store. */
export type WorkflowStateChange = (current: WorkflowState) => WorkflowState | Promise<WorkflowState>;

/** How one transaction runs. */
export interface TransactOptions {
  /** Wait this long for another holder of the state lock before `state_locked` (default 5 s). */
  readonly lockWaitMs?: number;
  readonly durability?: StateDurability;
  /** The clock of `updated_at` (tests). */
  readonly now?: () => Date;
}

/**
 * Under the run's state lock, reads state.json, applies `change`, checks the result and writes it with
 * `revision + 1`; a change that throws or yields an invalid state writes nothing.
 */
export async function transactWorkflowState(
  projectDir: string,
  runId: RunId,
  change: WorkflowStateChange,
  options: TransactOptions = {},
): Promise<WorkflowState> {
  const lock = await acquireStateLock(
    projectDir,
    runId,
    options.lockWaitMs === undefined ? {} : { waitMs: options.lockWaitMs },
  );
  try {
    const current = await readWorkflowState(projectDir, runId);
    const next = checkNext(current, await change(current), (options.now ?? (() => new Date()))());
    // The lock is only taken from a holder whose process is gone: still holding it means no one else wrote.
    if (!(await lock.isHeld())) {
      throw new WorkflowStateError(
        'state_conflict',
        `workflow run ${runId} changed hands while this call held its state lock; call workflow_status and retry`,
      );
    }
    const root = await openConfinedRoot(projectDir);
    try {
      await writeWorkflowStateFile(root, next, options.durability ?? 'fsync');
    } finally {
      await root.close();
    }
    return next;
  } finally {
    await lock.release();
  }
}

/**
 * Compare-and-swap: applies `change` only if the state on disk still has `expectedRevision`, else throws
 * {@link WorkflowStateError} `state_conflict` and leaves the file untouched.
 */
export async function updateWorkflowState(
  projectDir: string,
  runId: RunId,
  expectedRevision: number,
  change: WorkflowStateChange,
  options: TransactOptions = {},
): Promise<WorkflowState> {
  return transactWorkflowState(
    projectDir,
    runId,
    (current) => {
      if (current.revision !== expectedRevision) {
        throw new WorkflowStateError(
          'state_conflict',
          `workflow run ${runId} was changed by another call (revision ${String(current.revision)}, expected ${String(expectedRevision)}); nothing was changed: call workflow_status and retry`,
        );
      }
      return change(current);
    },
    options,
  );
}

/** The checked next state: fixed fields unchanged, revision + 1, updated_at now, valid by the schema. */
function checkNext(current: WorkflowState, proposed: WorkflowState, now: Date): WorkflowState {
  for (const field of FIXED_STATE_FIELDS) {
    if (proposed[field] !== current[field]) {
      throw new WorkflowStateError(
        'state_invalid',
        `a change may not alter ${field} of workflow run ${current.run_id}; nothing was written`,
      );
    }
  }
  const checked = workflowStateSchema.safeParse({
    ...proposed,
    revision: current.revision + 1,
    updated_at: now.toISOString(),
  });
  if (!checked.success) {
    const issues = describeSchemaIssues(checked.error.issues);
    throw new WorkflowStateError(
      'state_invalid',
      `the change to workflow run ${current.run_id} would make an invalid state (${issues}); nothing was written`,
    );
  }
  return checked.data;
}
