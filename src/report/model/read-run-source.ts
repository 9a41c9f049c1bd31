import type { Budgets } from '../../contracts/index.js';
import { usingProject } from '../../store/index.js';
import type { Project, ProjectRef } from '../../store/index.js';
import { readTransitionLog, resolveRunState } from '../../runtime/index.js';
import type { RunState } from '../../runtime/index.js';
import { parseWorkflow, parseWorkflowState, readPinnedDefinition } from '../../workflow/index.js';
import type { WorkflowState } from '../../workflow/index.js';
import { describeError, runStatePath } from '../../project/index.js';
import type { RunId } from '../../project/index.js';
import { stateKindOf } from '../../runs/index.js';
import type { ReportProblem } from './run-report.js';

/**
 * What made a run, as its state.json says: the runtime (a graph state), the workflow engine (a workflow state
 * and the step ids of its pinned definition) or `ingest --run-id` (no state.json). A state that cannot be read
 * is null with a problem, so the report still shows the run's records.
 */
export type RunSource =
  | { readonly kind: 'graph'; readonly state: RunState | null; readonly problems: readonly ReportProblem[] }
  | {
      readonly kind: 'workflow';
      readonly state: WorkflowState | null;
      /** The pinned definition's step ids in order; empty when it could not be read. */
      readonly stepIds: readonly string[];
      /** The pinned definition's budgets, or null when it could not be read. */
      readonly budgets: Budgets | null;
      readonly problems: readonly ReportProblem[];
    }
  | { readonly kind: 'ingest'; readonly problems: readonly [] };

/** Reads a run's state.json, whichever engine wrote it, without throwing on a corrupt one. */
export function readRunSource(project: ProjectRef, runId: RunId): Promise<RunSource> {
  return usingProject(project, (opened) => readSource(opened, runId));
}

async function readSource(project: Project, runId: RunId): Promise<RunSource> {
  const file = runStatePath(runId);
  // Read before state.json, as readRunState does, so a compaction in between never pairs a new log with an old state.
  let log: string | undefined;
  try {
    log = await readTransitionLog(project, runId);
  } catch (error) {
    return { kind: 'graph', state: null, problems: [unreadableState(file, describeError(error))] };
  }
  let text: string | undefined;
  try {
    text = await project.store.readText(file);
  } catch (error) {
    return { kind: 'graph', state: null, problems: [unreadableState(file, describeError(error))] };
  }
  if (text === undefined) return { kind: 'ingest', problems: [] };
  // One read of state.json: each engine's parser checks the same text and names the file in its errors.
  if (stateKindOf(text) === 'graph') {
    try {
      // Through the runtime's one reader of a graph run's state: a run in flight or killed reads as far as
      // its transition log went.
      return { kind: 'graph', state: resolveRunState(text, file, log), problems: [] };
    } catch (error) {
      return { kind: 'graph', state: null, problems: [unreadableState(file, describeError(error))] };
    }
  }
  let state: WorkflowState;
  try {
    state = parseWorkflowState(text, file);
  } catch (error) {
    return {
      kind: 'workflow',
      state: null,
      stepIds: [],
      budgets: null,
      problems: [unreadableState(file, describeError(error))],
    };
  }
  try {
    const pinned = await readPinnedDefinition(project, state);
    const definition = parseWorkflow(pinned.text, state.definition_path);
    return {
      kind: 'workflow',
      state,
      stepIds: definition.steps.map((step) => step.id),
      budgets: definition.budgets,
      problems: [],
    };
  } catch (error) {
    const problem = {
      code: 'unreadable_definition',
      message: `the steps that did not run are not shown: ${describeError(error)}`,
    };
    return { kind: 'workflow', state, stepIds: [], budgets: null, problems: [problem] };
  }
}

function unreadableState(file: string, detail: string): ReportProblem {
  return {
    code: 'unreadable_state',
    message: `${file} cannot be read (${detail}); the header and the steps that did not run are missing, the rest comes from the run's records`,
  };
}
