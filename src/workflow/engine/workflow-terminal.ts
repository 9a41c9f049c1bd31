import { chooseTerminal, declareTerminal, readSubmissions } from '../../contracts/index.js';
import type { TerminalState } from '../../contracts/index.js';
import type { EventLog } from '../../events/index.js';
import { describeError } from '../../project/index.js';
import type { RunId } from '../../project/index.js';
import { openConfinedRoot } from '../../workspace/index.js';
import type { WorkflowFailure } from './judge-step-contract.js';

/**
 * The one terminal state of a workflow that is ending (spec contracts.md): `budget_exceeded` or `blocked` from
 * its failure, else `done`; the artifact a reviewer reads is chosen from the run's canonical submissions.
 */
export async function workflowTerminalOf(
  projectDir: string,
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

/**
 * Writes the run's terminal.json and the `run.terminal` event once its ending state is written; fail-open, as
 * the run's events are: the state already says how it ended, a failure to declare it is reported on stderr.
 */
export async function declareWorkflowTerminal(
  projectDir: string,
  runId: RunId,
  events: EventLog,
  terminal: TerminalState,
  durability: 'fsync' | 'none',
): Promise<void> {
  try {
    const root = await openConfinedRoot(projectDir);
    try {
      await declareTerminal(root, runId, events, terminal, { durability });
    } finally {
      await root.close();
    }
  } catch (error) {
    process.stderr.write(
      `artifact-ingest: terminal.json of run ${runId} was not written: ${describeError(error)}\n`,
    );
  }
}
