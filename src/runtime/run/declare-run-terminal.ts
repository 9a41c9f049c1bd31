import type { Project, ProjectRef } from '../../store/index.js';
import {
  chooseTerminal,
  declareTerminal,
  readLatestPayload,
  readSubmissions,
  validateArtifact,
} from '../../contracts/index.js';
import type { ArtifactPayload, RunEnding, TerminalState } from '../../contracts/index.js';
import type { EventLog } from '../../events/index.js';
import { describeError, parseRunId, terminalStatePath } from '../../project/index.js';
import type { RunId } from '../../project/index.js';
import type { ConfinedRoot } from '../../workspace/index.js';
import type { GraphDefinition } from '../graph/index.js';
import { listRuns } from './list-runs.js';
import type { ExceededBudget } from './run-budget.js';
import { RunError } from './run-error.js';
import type { RunBudgetsState, RunState } from '../../runs/index.js';

/** What an ended run hands to {@link declareRunTerminal}. */
export interface EndedRun {
  /** The project folder, or a `Project` whose store keeps the run. */
  readonly project: Project;
  readonly root: ConfinedRoot;
  readonly runId: RunId;
  /** The run's events (bound to its run_id). */
  readonly events: EventLog;
  readonly graph: GraphDefinition;
  readonly state: RunState;
  /** The budget that ran out in this invocation, if one did. */
  readonly exceeded: ExceededBudget | undefined;
  readonly budgets: RunBudgetsState;
  readonly at: Date;
}

/**
 * Declares the one terminal state of an ended graph run (spec contracts.md): terminal.json through the project's
 * store and a `run.terminal` event carrying the budgets used. Throws {@link RunError}
 * `state_write_failed` when terminal.json cannot be written (a symlink planted at it is refused, never followed).
 */
export async function declareRunTerminal(run: EndedRun): Promise<TerminalState> {
  const ending = await endingOf(run);
  const terminal = chooseTerminal(ending, run.at);
  try {
    return await declareTerminal(run.project, run.runId, run.events, terminal, {
      eventFields: { budgets: run.budgets },
    });
  } catch (error) {
    // declareTerminal's message already names terminal.json and why (a planted symlink is refused).
    const message = describeError(error);
    throw new RunError(
      'state_write_failed',
      message.includes(terminalStatePath(run.runId))
        ? message
        : `${terminalStatePath(run.runId)} was not written: ${message}`,
      { cause: error },
    );
  }
}

/** How the run ended, from its state: the first node (in graph order) that blocked, failed or ran out of fixes. */
async function endingOf(run: EndedRun): Promise<RunEnding> {
  const nodes = run.graph.nodes.flatMap((node) => {
    const state = run.state.nodes[node.id];
    return state === undefined ? [] : [{ id: node.id, state }];
  });
  const fixesOut = nodes.find(({ state }) => state.error?.code === 'fix_needed');
  const blocked = nodes.find(({ state }) => state.contract?.state === 'blocked');
  const failed = nodes.find(
    ({ state }) =>
      state.status === 'failed' &&
      !['blocked', 'fix_needed', 'budget_exceeded'].includes(state.error?.code ?? ''),
  );
  const budgetExceeded =
    run.exceeded ??
    (fixesOut === undefined
      ? undefined
      : {
          budget: 'max_fix_attempts' as const,
          reason: `max_fix_attempts ran out: ${fixesOut.state.error?.message ?? `node ${fixesOut.id} needs a fix`}`,
        });
  const submissions = (await readSubmissions(run.project, run.runId)).map((submission) => ({
    type: submission.type,
    path: submission.record.path,
  }));
  const regression = await findRegression(run);
  return {
    ...(budgetExceeded === undefined ? {} : { budgetExceeded }),
    ...(regression === undefined ? {} : { regression }),
    ...(blocked === undefined
      ? {}
      : {
          blocked: {
            reason: `node ${blocked.id} is blocked: ${blocked.state.contract?.reason ?? blocked.state.error?.message ?? ''}`,
            artifact: blocked.state.contract?.artifact ?? null,
          },
        }),
    ...(failed === undefined
      ? {}
      : {
          failed: {
            reason: `node ${failed.id} failed (${failed.state.error?.code ?? 'unknown'}): ${failed.state.error?.message ?? ''}`,
          },
        }),
    submissions,
  };
}

/**
 * A regression: this run's latest smoke_test_result has failures, and the previous run of the same graph
 * (the latest created before this one that submitted a smoke_test_result) had none.
 */
async function findRegression(
  run: EndedRun,
): Promise<{ readonly reason: string; readonly artifact: string } | undefined> {
  const current = await smokeResultOf(run.project, run.runId);
  if (current === undefined || current.payload.failed === 0) return undefined;
  const earlier = (await listRuns(run.project))
    .filter(
      (summary) =>
        summary.kind === 'graph' &&
        summary.graph === run.graph.name &&
        summary.run_id !== run.runId &&
        summary.created_at !== '' &&
        summary.created_at < run.state.created_at,
    )
    .sort((a, b) => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : 0));
  for (const summary of earlier) {
    const previous = await smokeResultOf(run.project, parseRunId(summary.run_id));
    if (previous === undefined) continue;
    if (previous.payload.failed > 0) return undefined;
    const failed = current.payload.failed;
    return {
      reason: `${String(failed)} smoke command${failed === 1 ? '' : 's'} failed where run ${summary.run_id} of graph ${run.graph.name} passed them all: ${current.payload.summary}`,
      artifact: current.path,
    };
  }
  return undefined;
}

async function smokeResultOf(
  projectDir: ProjectRef,
  runId: RunId,
): Promise<{ readonly path: string; readonly payload: ArtifactPayload<'smoke_test_result'> } | undefined> {
  const latest = await readLatestPayload(projectDir, runId, 'smoke_test_result');
  if (latest === undefined) return undefined;
  const checked = validateArtifact('smoke_test_result', latest.payload);
  if (!checked.ok) return undefined;
  return { path: latest.record.path, payload: checked.payload as ArtifactPayload<'smoke_test_result'> };
}
