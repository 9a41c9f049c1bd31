import { describeSchemaIssues } from '../../config/index.js';
import { runDir, RUNS_DIR, runStatePath, sha256Hex } from '../../project/index.js';
import type { NodeId, RunId } from '../../project/index.js';
import { usingProject } from '../../store/index.js';
import type { Project, ProjectRef, ProjectStore } from '../../store/index.js';
import { acquireStateLock, runFolderUnusable } from './acquire-state-lock.js';
import { appendRevisionEvents } from './append-revision-events.js';
import type { RevisionEvent } from '../../runs/index.js';
import { WorkflowStateError } from './workflow-state-error.js';
import { workflowDefinitionPath } from '../../runs/index.js';
import { workflowStateSchema } from '../../runs/index.js';
import type { WorkflowStepType } from '../definition/index.js';
import type { WorkflowState, WorkflowTask } from '../../runs/index.js';
import { writeWorkflowStateFile } from './write-workflow-state.js';
import type { StateDurability } from './write-workflow-state.js';

/** A definition as it is pinned in a run: its name, the sha256 hex of its text, and the text itself. */
export interface PinnedDefinition {
  readonly name: string;
  readonly hash: string;
  readonly text: string;
}

/** What a new workflow run starts with; the store adds status, revision, times and empty records. */
export interface NewWorkflowState {
  readonly run_id: RunId;
  /** The machine starting the run (`resolveRunHost`); left out, the state has no `host`. */
  readonly host?: string;
  readonly definition: PinnedDefinition;
  readonly inputs: WorkflowState['inputs'];
  /** The first step (the engine decides which, and its type and pass). */
  readonly step: NodeId;
  readonly stepType: WorkflowStepType;
  readonly step_index?: number;
  readonly task?: WorkflowTask;
  readonly ralphIteration?: number;
  readonly tasks?: WorkflowState['tasks'];
}

/** How a state is created. */
export interface CreateOptions {
  readonly durability?: StateDurability;
  /** The clock of `started_at` (tests). */
  readonly now?: () => Date;
  /** The events of the start, kept in the first state's `revision_events` and appended right after it (D89). */
  readonly events?: (first: WorkflowState) => readonly RevisionEvent[];
  /**
   * Runs once the run folder and the definition copy are in place, before state.json: the start snapshot, so a
   * state is never written without the snapshot its first pass compares with.
   */
  readonly beforeFirstState?: (first: WorkflowState) => Promise<void>;
}

/**
 * Creates `.agent/runs/<run_id>/` with the pinned definition (`workflow.yaml`) and state.json at revision 0,
 * then appends the start's events, all under the run's state lock; throws {@link WorkflowStateError}
 * `run_exists` when the run's folder already exists (any kind of run).
 */
export async function createWorkflowState(
  project: ProjectRef,
  initial: NewWorkflowState,
  options: CreateOptions = {},
): Promise<WorkflowState> {
  const { definition } = initial;
  if (sha256Hex(definition.text) !== definition.hash) {
    throw new WorkflowStateError(
      'definition_mismatch',
      `the hash given for workflow ${definition.name} is not the sha256 of its text; pin the definition as it was loaded`,
    );
  }
  const state = withEvents(firstState(initial, (options.now ?? (() => new Date()))()), options.events);
  return usingProject(project, (opened) => create(opened, state, definition, options));
}

async function create(
  project: Project,
  state: WorkflowState,
  definition: PinnedDefinition,
  options: CreateOptions,
): Promise<WorkflowState> {
  const { store } = project;
  const runId = state.run_id;
  const durability = options.durability ?? 'fsync';
  await refuseTakenRunId(store, runId);
  // The copy first, created exclusively: the atomic claim on the run id (of two starters, one finds it there),
  // and a state.json never names a definition that is not there.
  if (!(await claimRunId(store, runId, definition.text, durability))) throw runExists(runId);
  let written = false;
  try {
    // Held until the events are appended: a reader that finds them missing waits, then finds them there.
    const lock = await acquireStateLock(project, runId);
    try {
      await options.beforeFirstState?.(state);
      await writeWorkflowStateFile(store, state, durability);
      written = true;
      await appendRevisionEvents(project, state, state.revision_events ?? []);
    } finally {
      await lock.release();
    }
  } catch (error) {
    // What is stored of the run is this call's own: removing it frees the run id for a retry.
    // A failing removal must not hide why the start failed.
    if (!written) await removeStoredFiles(store, runDir(runId)).catch(() => undefined);
    throw error;
  }
  return state;
}

/**
 * Throws `run_exists` when anything stands at the run's folder (a run of any kind, a symlink, a file; a folder
 * holding nothing is free), and `run_dir_unusable` when `.agent/runs` cannot be used.
 */
async function refuseTakenRunId(store: ProjectStore, runId: RunId): Promise<void> {
  let entry;
  try {
    entry = (await store.list(RUNS_DIR)).find((found) => found.name === runId);
  } catch (error) {
    throw runFolderUnusable(error) ?? error;
  }
  if (entry === undefined) return;
  if (entry.kind === 'folder' && (await store.list(runDir(runId))).length === 0) return;
  throw runExists(runId);
}

/** Stores the pinned definition unless the run's copy is there already; false when it is (another starter's). */
async function claimRunId(
  store: ProjectStore,
  runId: RunId,
  text: string,
  durability: StateDurability,
): Promise<boolean> {
  try {
    return await store.createExclusive(workflowDefinitionPath(runId), text, { durability });
  } catch (error) {
    throw runFolderUnusable(error) ?? error;
  }
}

function runExists(runId: RunId): WorkflowStateError {
  return new WorkflowStateError(
    'run_exists',
    `run ${runId} already exists (${runDir(runId)}); continue it with workflow_status, or start with another run_id`,
  );
}

/** Removes every file stored below `folder` (the folders of the files store stay, holding nothing). */
async function removeStoredFiles(store: ProjectStore, folder: string): Promise<void> {
  for (const entry of await store.list(folder)) {
    const key = `${folder}/${entry.name}`;
    if (entry.kind === 'folder') await removeStoredFiles(store, key);
    else if (entry.kind === 'file') await store.remove(key);
  }
}

/** The first state with the start's events, checked by the schema as every state is. */
function withEvents(state: WorkflowState, eventsOf: CreateOptions['events']): WorkflowState {
  const events = eventsOf?.(state) ?? [];
  if (events.length === 0) return state;
  const checked = workflowStateSchema.safeParse({ ...state, revision_events: events });
  if (!checked.success) {
    throw new WorkflowStateError(
      'state_invalid',
      `the start events of run ${state.run_id} are invalid (${describeSchemaIssues(checked.error.issues)}); nothing was written`,
    );
  }
  return checked.data;
}

function firstState(initial: NewWorkflowState, now: Date): WorkflowState {
  const at = now.toISOString();
  const candidate = {
    kind: 'workflow',
    version: 1,
    run_id: initial.run_id,
    ...(initial.host === undefined ? {} : { host: initial.host }),
    workflow: initial.definition.name,
    definition_hash: initial.definition.hash,
    definition_path: workflowDefinitionPath(initial.run_id),
    inputs: initial.inputs,
    status: 'running',
    step: initial.step,
    stepType: initial.stepType,
    step_index: initial.step_index ?? 0,
    step_started_at: at,
    ...(initial.task === undefined ? {} : { task: initial.task }),
    ...(initial.ralphIteration === undefined ? {} : { ralphIteration: initial.ralphIteration }),
    tasks: initial.tasks ?? {},
    outputs: {},
    artefacts: [],
    step_artefacts: [],
    agent_calls: 0,
    started_at: at,
    updated_at: at,
    revision: 0,
  };
  const checked = workflowStateSchema.safeParse(candidate);
  if (!checked.success) {
    const issues = describeSchemaIssues(checked.error.issues);
    throw new WorkflowStateError(
      'state_invalid',
      `the first state of run ${initial.run_id} would be invalid (${issues}); nothing was written to ${runStatePath(initial.run_id)}`,
    );
  }
  return checked.data;
}
