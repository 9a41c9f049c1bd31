import type { ProjectRef } from '../../store/index.js';
import { ObserveError, registerArtefacts } from '../observe/index.js';
import type { InvalidArtefact, RegisterArtefactsResult } from '../observe/index.js';
import { updateWorkflowState } from '../state/index.js';
import type { WorkflowState } from '../state/index.js';
import { currentStep, passField, passOf } from './step-position.js';
import { requireRunning, selectWorkflowRun } from './select-workflow-run.js';
import { appendWorkflowEvents, revisionEventOf } from './workflow-events.js';
import type { WorkflowEvent } from './workflow-events.js';
import type { WorkflowEngineDeps } from './workflow-engine-deps.js';
import { WorkflowError } from './workflow-error.js';

/** `register_artefacts`' input (spec workflow-mcp.md); `paths` is checked here, as a client sent it. */
export interface RegisterWorkflowArtefactsRequest {
  /** Left out: the one running workflow of the project. */
  readonly run_id?: string;
  /** Must be an array of strings: paths absolute or relative to the project root. */
  readonly paths: unknown;
}

/** `register_artefacts`' result (spec workflow-mcp.md); paths are project-relative POSIX paths. */
export interface RegisterWorkflowArtefactsResult {
  readonly run_id: string;
  /** Newly registered in this run, in the order given; appended to the status's `artefacts`. */
  readonly registered: readonly string[];
  /** Already registered in this run, or given twice in this call. */
  readonly duplicates: readonly string[];
  /** Refused paths, each as given with a reason code and a message; nothing is recorded for them. */
  readonly invalid: readonly InvalidArtefact[];
}

/** Thrown inside the state transaction when the call claims nothing, so no state is written. */
class NothingClaimed extends Error {
  constructor(readonly result: RegisterArtefactsResult) {
    super('nothing claimed');
  }
}

/**
 * Registers files the agent wrote in the current pass of a running workflow: judges and records them
 * (observe's `registerArtefacts`), appends the new ones to the state's `artefacts` and every claimed one to
 * the pass's `step_artefacts`, and appends `artefacts.registered`. The files are recorded under the run's state
 * lock after the compare-and-swap check, so a call that loses a race records and changes nothing.
 */
export async function registerWorkflowArtefacts(
  projectDir: ProjectRef,
  request: RegisterWorkflowArtefactsRequest,
  deps: Pick<WorkflowEngineDeps, 'durability' | 'config' | 'now' | 'lockWaitMs'> = {},
): Promise<RegisterWorkflowArtefactsResult> {
  const { state, definition } = await selectWorkflowRun(projectDir, request.run_id);
  requireRunning(state, 'register_artefacts');
  const step = currentStep(definition, state);
  const pass = passOf(state);
  const durability = deps.durability ?? deps.config?.ingest.durability ?? 'fsync';
  const options = { durability, ...(deps.now === undefined ? {} : { now: deps.now }) };
  let result: RegisterArtefactsResult | undefined;
  const registeredEvent = (found: RegisterArtefactsResult): WorkflowEvent => ({
    level: found.invalid.length > 0 ? 'WARNING' : 'INFO',
    event: 'artefacts.registered',
    fields: {
      step: step.id,
      ...passField(pass),
      registered: found.registered,
      duplicates: found.duplicates,
      invalid: found.invalid.map(({ path, code }) => ({ path, code })),
      records: found.records.map((record) => record.artifactId),
    },
  });
  try {
    await updateWorkflowState(
      projectDir,
      state.run_id,
      state.revision,
      async (current) => {
        // Under the lock, after the revision check: `current.artefacts` is exactly what the records link to.
        const found = await registerArtefacts(
          projectDir,
          {
            runId: current.run_id,
            taskId: step.id,
            agentId: step.agent ?? 'workflow',
            paths: request.paths,
            already: current.artefacts,
          },
          options,
        );
        result = found;
        const claimed = withoutRepeats([...current.step_artefacts, ...found.registered, ...found.duplicates]);
        if (found.registered.length === 0 && claimed.length === current.step_artefacts.length) {
          throw new NothingClaimed(found);
        }
        return claimedState(current, found.registered, claimed);
      },
      {
        durability,
        ...lockOptions(deps),
        // Kept in the state it writes and appended right after it (D89).
        events: () => (result === undefined ? [] : [revisionEventOf(registeredEvent(result))]),
      },
    );
  } catch (error) {
    if (!(error instanceof NothingClaimed)) {
      if (error instanceof ObserveError && error.code === 'invalid_paths') {
        throw new WorkflowError('invalid_request', error.message, { cause: error });
      }
      throw error;
    }
    // No state was written: the call is still reported.
    result = error.result;
    await appendWorkflowEvents(projectDir, state.run_id, [registeredEvent(result)]);
  }
  // The change ran (the state was written or NothingClaimed carried it): only a bug leaves it unset.
  if (result === undefined) throw new Error('register_artefacts finished without a result');
  return {
    run_id: state.run_id,
    registered: result.registered,
    duplicates: result.duplicates,
    invalid: result.invalid,
  };
}

function claimedState(
  current: WorkflowState,
  registered: readonly string[],
  claimed: readonly string[],
): WorkflowState {
  return {
    ...current,
    artefacts: withoutRepeats([...current.artefacts, ...registered]),
    step_artefacts: claimed,
  };
}

function withoutRepeats(paths: readonly string[]): string[] {
  return [...new Set(paths)];
}

function lockOptions(deps: Pick<WorkflowEngineDeps, 'now' | 'lockWaitMs'>): {
  now?: () => Date;
  lockWaitMs?: number;
} {
  return {
    ...(deps.now === undefined ? {} : { now: deps.now }),
    ...(deps.lockWaitMs === undefined ? {} : { lockWaitMs: deps.lockWaitMs }),
  };
}
