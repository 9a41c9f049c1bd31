import type { ProjectRef } from '../../store/index.js';
import { readTerminal } from '../../contracts/index.js';
import { terminalStatePath } from '../../project/index.js';
import type { RunId } from '../../project/index.js';
import { findMissingRevisionEvents, readWorkflowState } from '../state/index.js';
import type { WorkflowState } from '../state/index.js';

/** What a workflow run's state.json says happened that its events.jsonl (or terminal.json) does not hold. */
export interface WorkflowEventGap {
  readonly runId: RunId;
  /** The state revision whose events are missing. */
  readonly revision: number;
  /** The names of the revision's events that events.jsonl lacks, in order. */
  readonly missingEvents: readonly string[];
  /** The project-relative terminal.json the state declares and that is not there; absent when it is. */
  readonly missingTerminal?: string;
}

/**
 * The workflow runs of `runIds` whose state.json is ahead of what was appended
 * after it: a process killed between the two (D89). Reads only: the next engine call on such a run appends
 * what is missing; graph runs, ingest runs and unreadable states are skipped.
 */
export async function findWorkflowEventGaps(
  projectDir: ProjectRef,
  runIds: readonly RunId[],
): Promise<WorkflowEventGap[]> {
  const gaps: WorkflowEventGap[] = [];
  for (const runId of runIds) {
    const state = await readWorkflowState(projectDir, runId).catch(() => undefined);
    if (state === undefined) continue;
    const missingEvents = (await findMissingRevisionEvents(projectDir, state)).map((entry) => entry.event);
    const missingTerminal = await missingTerminalOf(projectDir, state);
    if (missingEvents.length === 0 && missingTerminal === undefined) continue;
    gaps.push({
      runId,
      revision: state.revision,
      missingEvents,
      ...(missingTerminal === undefined ? {} : { missingTerminal }),
    });
  }
  return gaps;
}

async function missingTerminalOf(projectDir: ProjectRef, state: WorkflowState): Promise<string | undefined> {
  if (state.terminal === undefined) return undefined;
  try {
    return (await readTerminal(projectDir, state.run_id)) === undefined
      ? terminalStatePath(state.run_id)
      : undefined;
  } catch {
    // There but unreadable (a FIFO, a symlink): not a file a kill left out.
    return undefined;
  }
}
