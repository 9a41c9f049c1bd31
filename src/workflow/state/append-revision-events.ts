import { openRunEventLog } from '../../events/index.js';
import { describeError } from '../../project/index.js';
import type { ProjectRef } from '../../store/index.js';
import { STATE_REVISION_FIELD } from '../../runs/index.js';
import type { RevisionEvent } from '../../runs/index.js';
import type { WorkflowState } from '../../runs/index.js';

/** How {@link appendRevisionEvents} marks what it appends. */
export interface AppendRevisionOptions {
  /** The events are appended late, by a later call, because their writer was killed after the state: say so. */
  readonly recovered?: boolean;
}

/**
 * Appends `entries`, events of `state`'s revision, to the run's events.jsonl in one write(2), each with
 * `state_revision` (and `recovered: true` when appended late); fail-open, as every event sink (spec ingest.md
 * section 6): a broken log never undoes a state change, it is reported on stderr and the next call retries.
 */
export async function appendRevisionEvents(
  project: ProjectRef,
  state: WorkflowState,
  entries: readonly RevisionEvent[],
  options: AppendRevisionOptions = {},
): Promise<void> {
  if (entries.length === 0) return;
  const marks = {
    [STATE_REVISION_FIELD]: state.revision,
    ...(options.recovered === true ? { recovered: true } : {}),
  };
  try {
    const log = await openRunEventLog(project, state.run_id, { run_id: state.run_id });
    try {
      log.writeAll(
        entries.map(({ level, event, fields }) => ({ level, event, fields: { ...fields, ...marks } })),
      );
    } finally {
      await log.close();
    }
  } catch (error) {
    process.stderr.write(
      `artifact-ingest: events of run ${state.run_id} (revision ${String(state.revision)}) were not written: ${describeError(error)}; the next call on the run appends them\n`,
    );
  }
}
