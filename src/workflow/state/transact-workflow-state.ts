import { describeSchemaIssues } from '../../config/index.js';
import type { RunId } from '../../project/index.js';
import { usingProject } from '../../store/index.js';
import type { Project, ProjectRef } from '../../store/index.js';
import { acquireStateLock } from './acquire-state-lock.js';
import { appendRevisionEvents } from './append-revision-events.js';
import { readWorkflowState } from './read-workflow-state.js';
import { appendMissingRevisionEvents } from './recover-revision-events.js';
import type { RevisionEvent } from '../../runs/index.js';
import { WorkflowStateError } from './workflow-state-error.js';
import { FIXED_STATE_FIELDS, workflowStateSchema } from '../../runs/index.js';
import type { WorkflowState } from '../../runs/index.js';
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
  /**
   * The events of this change, made from the checked next state (after `change` ran): kept in its
   * `revision_events` and appended to events.jsonl right after state.json is written, under the lock (D89).
   */
  readonly events?: (next: WorkflowState) => readonly RevisionEvent[];
}

/**
 * Under the run's state lock, reads state.json (appending the events of its revision that events.jsonl lacks),
 * applies `change`, checks the result and writes it with `revision + 1`, then appends the change's events; a
 * change that throws or yields an invalid state writes nothing.
 */
export async function transactWorkflowState(
  project: ProjectRef,
  runId: RunId,
  change: WorkflowStateChange,
  options: TransactOptions = {},
): Promise<WorkflowState> {
  return usingProject(project, (opened) => transact(opened, runId, change, options));
}

async function transact(
  project: Project,
  runId: RunId,
  change: WorkflowStateChange,
  options: TransactOptions,
): Promise<WorkflowState> {
  const lock = await acquireStateLock(
    project,
    runId,
    options.lockWaitMs === undefined ? {} : { waitMs: options.lockWaitMs },
  );
  try {
    const current = await readWorkflowState(project, runId);
    // A writer killed between its state and its events: its events go first, the state says they happened.
    await appendMissingRevisionEvents(project, current);
    const next = checkNext(
      current,
      await change(current),
      (options.now ?? (() => new Date()))(),
      options.events,
    );
    // The lock is only taken from a holder whose process is gone: still holding it means no one else wrote.
    if (!(await lock.isHeld())) {
      throw new WorkflowStateError(
        'state_conflict',
        `workflow run ${runId} changed hands while this call held its state lock; call workflow_status and retry`,
      );
    }
    await writeWorkflowStateFile(project.store, next, options.durability ?? 'fsync');
    // Still under the lock: whoever finds them missing takes the lock first, so they are never appended twice.
    await appendRevisionEvents(project, next, next.revision_events ?? []);
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
  project: ProjectRef,
  runId: RunId,
  expectedRevision: number,
  change: WorkflowStateChange,
  options: TransactOptions = {},
): Promise<WorkflowState> {
  return transactWorkflowState(
    project,
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

/**
 * The checked next state: fixed fields unchanged, revision + 1, updated_at now, valid by the schema, carrying
 * the events `eventsOf` makes of it (never the previous revision's).
 */
function checkNext(
  current: WorkflowState,
  proposed: WorkflowState,
  now: Date,
  eventsOf: TransactOptions['events'],
): WorkflowState {
  for (const field of FIXED_STATE_FIELDS) {
    if (proposed[field] !== current[field]) {
      throw new WorkflowStateError(
        'state_invalid',
        `a change may not alter ${field} of workflow run ${current.run_id}; nothing was written`,
      );
    }
  }
  // A change spreads the current state: the events of its revision are not this one's.
  const candidate: Record<string, unknown> = {
    ...proposed,
    revision: current.revision + 1,
    updated_at: now.toISOString(),
  };
  delete candidate['revision_events'];
  const checked = workflowStateSchema.safeParse(candidate);
  if (!checked.success) throw invalidChange(current, checked.error.issues);
  const events = eventsOf?.(checked.data) ?? [];
  if (events.length === 0) return checked.data;
  const withEvents = workflowStateSchema.safeParse({ ...candidate, revision_events: events });
  if (!withEvents.success) throw invalidChange(current, withEvents.error.issues);
  return withEvents.data;
}

function invalidChange(
  current: WorkflowState,
  issues: Parameters<typeof describeSchemaIssues>[0],
): WorkflowStateError {
  return new WorkflowStateError(
    'state_invalid',
    `the change to workflow run ${current.run_id} would make an invalid state (${describeSchemaIssues(issues)}); nothing was written`,
  );
}
