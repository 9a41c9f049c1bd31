import type { ProjectRef } from '../../store/index.js';
import { describeError } from '../../project/index.js';
import type { RunId } from '../../project/index.js';
import {
  beginStepObservation,
  endStepObservation,
  ObserveError,
  pathsToRegister,
  readProjectSnapshot,
  snapshotPath,
} from '../observe/index.js';
import type { ProjectSnapshot, SnapshotOptions } from '../observe/index.js';
import type { WorkflowState } from '../state/index.js';
import { passField, passOf } from './step-position.js';
import type {
  ObservedPass,
  WorkflowEngineDeps,
  WorkflowObserver,
  WorkflowReconciliation,
} from './workflow-engine-deps.js';

/** Options of {@link createWorkflowObserver}: the snapshot's hasher, clock and concurrency, and its durability. */
export interface WorkflowObserverOptions extends SnapshotOptions {
  /** Durability of the start snapshot stored in the run folder: `fsync` (default) or `none`. */
  readonly durability?: 'fsync' | 'none';
}

/**
 * The default declared-versus-observed observer (spec workflow-mcp.md): snapshots the project when a pass starts
 * (stored under `.agent/runs/<run_id>/snapshots/`, so a restarted server still compares), snapshots again warm
 * and reconciles with the pass's claimed paths at `workflow_advance`, and reconciles read-only for
 * `workflow_status`. A pass whose start was never snapshotted has no reconciliation.
 */
export function createWorkflowObserver(options: WorkflowObserverOptions = {}): WorkflowObserver {
  const { durability, ...snapshotOptions } = options;
  // The snapshot a pass ended with: the next pass's start reuses its hashes (warm) in the same process.
  const lastEnd = new Map<RunId, ProjectSnapshot>();
  const observedStep = (pass: ObservedPass) => ({
    runId: pass.runId,
    step: pass.step,
    ...(pass.pass === undefined ? {} : { pass: pass.pass }),
  });
  return {
    async stepStarted(pass) {
      const previous = lastEnd.get(pass.runId);
      lastEnd.delete(pass.runId);
      try {
        await beginStepObservation(pass.projectDir, observedStep(pass), previous, {
          ...snapshotOptions,
          ...(durability === undefined ? {} : { durability }),
        });
      } catch (error) {
        // A failed snapshot costs this pass its reconciliation, never the call.
        process.stderr.write(
          `artifact-ingest: the start of ${pass.step} in run ${pass.runId} was not snapshotted, so it has no reconciliation: ${describeError(error)}\n`,
        );
      }
    },
    async stepEnding(pass) {
      const step = observedStep(pass);
      if (!(await hasStartSnapshot(pass))) return undefined;
      const { reconciliation, after } = await endStepObservation(
        pass.projectDir,
        step,
        pass.claimed,
        snapshotOptions,
      );
      lastEnd.set(pass.runId, after);
      return {
        unregistered: reconciliation.unregistered,
        phantom: reconciliation.phantom,
        pathsToRegister: pathsToRegister(reconciliation),
      };
    },
    async observe(pass) {
      try {
        if (!(await hasStartSnapshot(pass))) return undefined;
        const { reconciliation } = await endStepObservation(
          pass.projectDir,
          observedStep(pass),
          pass.claimed,
          snapshotOptions,
        );
        return { unregistered: reconciliation.unregistered, phantom: reconciliation.phantom };
      } catch (error) {
        // The status stays readable with a damaged snapshot; workflow_advance reports it.
        if (error instanceof ObserveError) return undefined;
        throw error;
      }
    },
  };
}

async function hasStartSnapshot(pass: ObservedPass): Promise<boolean> {
  const stored = snapshotPath(pass.runId, pass.step, pass.pass);
  // A missing file is "never observed"; a damaged one throws ObserveError with what to do.
  return (await readProjectSnapshot(pass.projectDir, stored)) !== undefined;
}

/**
 * The observer an engine call uses: `deps.observer` when given, none when `deps.snapshots` is false, otherwise
 * a {@link createWorkflowObserver} with the call's durability.
 */
export function engineObserver(
  deps: Pick<WorkflowEngineDeps, 'observer' | 'snapshots' | 'durability' | 'config'>,
): WorkflowObserver | undefined {
  if (deps.observer !== undefined) return deps.observer;
  if (deps.snapshots === false) return undefined;
  const durability = deps.durability ?? deps.config?.ingest.durability;
  return createWorkflowObserver(durability === undefined ? {} : { durability });
}

/**
 * Takes the start snapshot of the pass `state` is in, before that state is written (under the run's state lock),
 * so no state names a pass whose start a kill left unobserved; a failing observer costs the pass its
 * reconciliation, never the call.
 */
export async function observePassStart(
  observer: WorkflowObserver | undefined,
  projectDir: ProjectRef,
  state: WorkflowState,
): Promise<void> {
  try {
    await observer?.stepStarted?.(observedPassOf(projectDir, state));
  } catch (error) {
    process.stderr.write(
      `artifact-ingest: the start of ${state.step} in run ${state.run_id} was not observed, so it has no reconciliation: ${describeError(error)}\n`,
    );
  }
}

/** The pass `state` is in, as an observer sees it. */
export function observedPassOf(projectDir: ProjectRef, state: WorkflowState): ObservedPass {
  return {
    projectDir,
    runId: state.run_id,
    step: state.step,
    ...passField(passOf(state)),
    startedAt: state.step_started_at,
    artefacts: state.artefacts,
    claimed: state.step_artefacts,
  };
}

/** The reconciliation as the status, events and refusals show it: `unregistered` and `phantom` only. */
export function publicReconciliation(
  found: WorkflowReconciliation | undefined,
): WorkflowReconciliation | undefined {
  return found === undefined ? undefined : { unregistered: found.unregistered, phantom: found.phantom };
}
