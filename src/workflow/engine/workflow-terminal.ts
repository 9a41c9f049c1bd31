import type { ProjectRef } from '../../store/index.js';
import { chooseTerminal, declareTerminal, readSubmissions, readTerminal } from '../../contracts/index.js';
import type { TerminalState } from '../../contracts/index.js';
import { memoryEventLog } from '../../events/index.js';
import { describeError } from '../../project/index.js';
import type { RunId } from '../../project/index.js';
import type { WorkflowState } from '../state/index.js';
import type { WorkflowFailure } from './advance/index.js';
import type { WorkflowEvent } from './workflow-events.js';

/**
 * The one terminal state of a workflow that is ending (spec contracts.md): `budget_exceeded` or `blocked` from
 * its failure, else `done`; the artifact a reviewer reads is chosen from the run's canonical submissions.
 */
export async function workflowTerminalOf(
  projectDir: ProjectRef,
  runId: RunId,
  failure: WorkflowFailure | undefined,
  at: Date,
): Promise<TerminalState> {
  const submissions = (await readSubmissions(projectDir, runId)).map(({ type, record }) => ({
    type,
    path: record.path,
  }));
  const terminal = chooseTerminal(
    {
      ...(failure?.kind === 'budget_exceeded'
        ? { budgetExceeded: { budget: failure.budget, reason: failure.reason } }
        : {}),
      ...(failure?.kind === 'blocked'
        ? { blocked: { reason: failure.reason, artifact: failure.artifact } }
        : {}),
      submissions,
    },
    at,
  );
  // chooseTerminal speaks of graph nodes; a workflow without contracts completed its steps.
  if (terminal.state === 'done' && submissions.length === 0) {
    return { ...terminal, reason: 'every step completed' };
  }
  return terminal;
}

/** The `run.terminal` event of an ending: one of the events of the state revision that declares it. */
export function terminalEvent(terminal: TerminalState): WorkflowEvent {
  return {
    level: terminal.state === 'done' ? 'INFO' : 'WARNING',
    event: 'run.terminal',
    fields: { ...terminal },
  };
}

/**
 * Writes the run's terminal.json once its ending state (and the `run.terminal` event among that state's
 * events) is written; fail-open, as the run's events are: the state already says how it ended, a failure is
 * reported on stderr and the next call on the run writes it ({@link recoverWorkflowTerminal}).
 */
export async function declareWorkflowTerminal(
  projectDir: ProjectRef,
  runId: RunId,
  terminal: TerminalState,
  durability: 'fsync' | 'none',
): Promise<void> {
  try {
    // The run.terminal event went with the state's events; the one declareTerminal writes is not kept.
    await declareTerminal(projectDir, runId, memoryEventLog(), terminal, { durability });
  } catch (error) {
    process.stderr.write(
      `artifact-ingest: terminal.json of run ${runId} was not written: ${describeError(error)}; the next call on the run writes it\n`,
    );
  }
}

/** Writes terminal.json of an ended run whose state declares a terminal state that terminal.json lacks (a kill). */
export async function recoverWorkflowTerminal(projectDir: ProjectRef, state: WorkflowState): Promise<void> {
  if (state.terminal === undefined) return;
  try {
    if ((await readTerminal(projectDir, state.run_id)) !== undefined) return;
  } catch {
    // Unreadable (a planted FIFO or symlink, not JSON): left as it is for a person to look at.
    return;
  }
  await declareWorkflowTerminal(projectDir, state.run_id, state.terminal, 'fsync');
}
