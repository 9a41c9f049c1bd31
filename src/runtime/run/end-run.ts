import type { Project } from '../../store/index.js';
import type { EventLog } from '../../events/index.js';
import { describeError, runDir } from '../../project/index.js';
import type { RunId } from '../../project/index.js';
import type { ConfinedRoot } from '../../workspace/index.js';
import type { GraphDefinition } from '../graph/index.js';
import { declareRunTerminal } from './declare-run-terminal.js';
import { exportAtRunEnd } from '../../git/index.js';
import type { RunBudget } from './run-budget.js';
import { RunError } from './run-error.js';
import type { RunStateStore } from './state/index.js';
import type { RunResult } from './run-types.js';
import type { RunState } from '../../runs/index.js';

/** A run whose node loop is over (without a fatal error). */
export interface FinishedNodeLoop {
  /** The project folder, or a `Project` whose store keeps the run. */
  readonly project: Project;
  readonly root: ConfinedRoot;
  readonly runId: RunId;
  readonly graph: GraphDefinition;
  /** The run's events (bound to its run_id). */
  readonly events: EventLog;
  readonly store: RunStateStore;
  /** The loop was stopped through the run's controller (its caller's signal, or max_minutes). */
  readonly aborted: boolean;
  readonly budget: RunBudget;
  /** `Date.now()` when this invocation started. */
  readonly startedMs: number;
  readonly now: () => Date;
  /** Export the run to git once it has ended (RunGraphOptions.gitExport). */
  readonly gitExport?: { readonly repo?: string | undefined };
}

/**
 * Ends a run whose nodes are done: its final status in state.json, `run.completed` or `run.failed`, and,
 * unless its caller interrupted it (which leaves it resumable), its one terminal state.
 */
export async function endRun(run: FinishedNodeLoop): Promise<RunResult> {
  const { graph, events, store, budget } = run;
  const counts = store.counts();
  const status = counts.completed === graph.nodes.length ? 'completed' : 'failed';
  store.setStatus(status);
  let state: RunState;
  try {
    // The run's state in one file again: state.json alone is complete once the run has ended.
    state = await store.finish();
  } catch (error) {
    // As a failed write mid-run does: the run stops here, its log keeps every transition for a resume.
    events.write('ERROR', 'run.failed', {
      reason: error instanceof RunError ? error.code : 'internal_error',
      message: describeError(error),
      nodes: counts,
      duration_ms: Date.now() - run.startedMs,
    });
    throw error;
  }
  const nodeIds = (wanted: string): string[] =>
    graph.nodes.filter((node) => state.nodes[node.id]?.status === wanted).map((node) => node.id);
  const exceeded = budget.exceeded();
  // Stopped by its caller (Ctrl-C): the run has not ended, it stays resumable and declares nothing.
  const interrupted = run.aborted && exceeded === undefined;
  if (status === 'completed') {
    events.write('INFO', 'run.completed', { nodes: counts, duration_ms: Date.now() - run.startedMs });
  } else {
    events.write('ERROR', 'run.failed', {
      reason: interrupted ? 'aborted' : exceeded !== undefined ? 'budget_exceeded' : 'node_failed',
      failed_nodes: nodeIds('failed'),
      skipped_nodes: nodeIds('skipped'),
      pending_nodes: nodeIds('pending'),
      nodes: counts,
      duration_ms: Date.now() - run.startedMs,
    });
  }
  const terminal = interrupted
    ? undefined
    : await declareRunTerminal({
        project: run.project,
        root: run.root,
        runId: run.runId,
        events,
        graph,
        state,
        exceeded,
        budgets: budget.state(),
        at: run.now(),
      });
  if (terminal !== undefined && run.gitExport !== undefined)
    await exportAtRunEnd(run.project, run.runId, run.events, run.gitExport.repo);
  return {
    runId: run.runId,
    status,
    state,
    runDir: runDir(run.runId),
    ...(terminal === undefined ? {} : { terminal }),
  };
}
