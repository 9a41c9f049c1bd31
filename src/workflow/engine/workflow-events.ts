import type { ProjectRef } from '../../store/index.js';
import { openRunEventLog } from '../../events/index.js';
import type { EventFields, EventLevel, EventLog } from '../../events/index.js';
import { describeError } from '../../project/index.js';
import type { RunId } from '../../project/index.js';
import type { RevisionEvent } from '../state/index.js';

/** One event of the engine: `workflow.started`, `step.started`, `step.completed`, `workflow.completed`, `workflow.aborted`, ... */
export interface WorkflowEvent {
  readonly level: EventLevel;
  readonly event: string;
  readonly fields: EventFields;
}

/** Opens the run's events.jsonl with `run_id` bound to every line (the caller closes it). */
export function openWorkflowEvents(projectDir: ProjectRef, runId: RunId): Promise<EventLog> {
  return openRunEventLog(projectDir, runId, { run_id: runId });
}

/** An event as a state revision keeps it (JSON only: what state.json can hold). */
export function revisionEventOf({ level, event, fields }: WorkflowEvent): RevisionEvent {
  return { level, event, fields: JSON.parse(JSON.stringify(fields)) as RevisionEvent['fields'] };
}

/**
 * Appends the events of a call that changed no state (a registration that claimed nothing); fail-open, as every event sink
 * (spec ingest.md section 6): a broken log never undoes a state change, it is reported on stderr.
 */
export async function appendWorkflowEvents(
  projectDir: ProjectRef,
  runId: RunId,
  events: readonly WorkflowEvent[],
  open?: EventLog,
): Promise<void> {
  try {
    const log = open ?? (await openWorkflowEvents(projectDir, runId));
    for (const { level, event, fields } of events) log.write(level, event, fields);
    if (open === undefined) await log.close();
  } catch (error) {
    process.stderr.write(
      `artifact-ingest: events of run ${runId} were not written: ${describeError(error)}\n`,
    );
  }
}
