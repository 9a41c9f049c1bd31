import { projectDirOf } from '../../store/index.js';
import type { ProjectRef } from '../../store/index.js';
import { randomBytes } from 'node:crypto';
import { closestMatch, ConfigError } from '../../config/index.js';
import { pushRunNow } from '../../fleet/index.js';
import { parseRunId } from '../../project/index.js';
import { resolveRunHost } from '../../runs/index.js';
import type { RunId } from '../../project/index.js';
import { assembleInstructions, loadWorkflow, WorkflowReferenceError } from '../definition/index.js';
import type { WorkflowDefinition } from '../definition/index.js';
import { createWorkflowState } from '../state/index.js';
import type { WorkflowState } from '../state/index.js';
import { engineObserver, observePassStart } from './create-workflow-observer.js';
import { enterStep, passValues } from './step-position.js';
import type { StepPosition } from './step-position.js';
import { revisionEventOf } from './workflow-events.js';
import type { WorkflowEngineDeps } from './workflow-engine-deps.js';
import { asRequestError, WorkflowError } from './workflow-error.js';
import { workflowStatusOf } from './workflow-status-response.js';
import type { WorkflowStatusResponse } from './workflow-status-response.js';
import { stepStartedEvent } from './step-events.js';

/** `workflow_start`'s input (spec workflow-mcp.md). */
export interface StartWorkflowRequest {
  /**
   * A name (`workflows/<name>.yaml`, then the built-ins) or the path of a YAML file under the project's
   * `workflows/` (relative to `deps.cwd`) that stays inside the project; anything else is refused unread.
   */
  readonly workflow: string;
  /** One value per declared input (text, or any JSON: a loop's `over` may name an input holding a list). */
  readonly inputs?: Readonly<Record<string, unknown>>;
  /** The new run's id; `<workflow>-<UTC time>-<4 hex>` when left out. */
  readonly run_id?: string;
}

/**
 * Starts a workflow: loads and pins its definition, checks the inputs, snapshots the project for the first
 * pass, writes the run's first state at the first step, appends `workflow.started` and `step.started` (kept in
 * that state, so a kill never loses them: D89), and returns the status.
 */
export async function startWorkflow(
  projectDir: ProjectRef,
  request: StartWorkflowRequest,
  deps: WorkflowEngineDeps = {},
): Promise<WorkflowStatusResponse> {
  const now = deps.now ?? (() => new Date());
  // Before anything is read or written: a bad ARTIFACT_INGEST_HOST refuses the start (invalid_config).
  const host = resolveRunHost(deps.env);
  const definition = await loadDefinition(projectDir, request.workflow, deps);
  const inputs = checkInputs(definition, request.inputs ?? {});
  const runId = runIdOf(request.run_id, definition, now());
  const known = { inputs, outputs: {}, tasks: {} };
  const first = enterStep(definition, 0, known);
  if (first === 'end') {
    throw new WorkflowError(
      'step_blocked',
      `workflow ${definition.name} has no step to run with these inputs (its loops have no items); give the loops' inputs at least one item`,
    );
  }
  checkRenders(runId, definition, first, inputs);
  const observer = engineObserver(deps);
  const state = await createWorkflowState(
    projectDir,
    {
      run_id: runId,
      host,
      definition: { name: definition.name, hash: definition.hash, text: definition.text },
      inputs,
      step: first.step,
      stepType: first.stepType,
      step_index: first.step_index,
      tasks: first.tasks,
      ...(first.task === undefined ? {} : { task: first.task }),
      ...(first.ralphIteration === undefined ? {} : { ralphIteration: first.ralphIteration }),
    },
    {
      durability: deps.durability ?? deps.config?.ingest.durability ?? 'fsync',
      now,
      beforeFirstState: (firstState) => observePassStart(observer, projectDir, firstState),
      events: (firstState) =>
        [
          {
            level: 'INFO' as const,
            event: 'workflow.started',
            fields: {
              workflow: definition.name,
              version: definition.version,
              definition_hash: definition.hash,
              source: definition.source,
              inputs: Object.keys(inputs),
            },
          },
          stepStartedEvent(firstState),
        ].map(revisionEventOf),
    },
  );
  // Local first: the run's first state and events are on disk; the remote gets them now, or the outbox keeps the run
  // for `artifact-ingest push`. Fail-open: this never throws.
  if (deps.remote !== undefined) {
    await pushRunNow({ project: projectDir, remote: deps.remote, runId: state.run_id });
  }
  return workflowStatusOf(state, definition);
}

async function loadDefinition(
  projectDir: ProjectRef,
  ref: string,
  deps: WorkflowEngineDeps,
): Promise<WorkflowDefinition> {
  // The MCP and CLI layers pass what a client sent: a missing or empty name must not reach the loader.
  if (typeof (ref as unknown) !== 'string' || ref.trim() === '') {
    throw new WorkflowError(
      'invalid_request',
      `workflow must be a workflow's name or the path of a YAML file under workflows/; call workflow_list to see the names`,
    );
  }
  try {
    const folder = projectDirOf(projectDir);
    return await loadWorkflow(ref, { projectDir: folder, cwd: deps.cwd ?? folder });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    // A reference that names nothing is one sentence; a file that cannot be read as a definition (a FIFO, too
    // big) is one issue with no key and no line; anything else is a definition that does not validate.
    const notFound =
      error instanceof WorkflowReferenceError ||
      error.issues.every((issue) => issue.path === '' && issue.line === undefined);
    throw new WorkflowError(notFound ? 'unknown_workflow' : 'invalid_workflow', error.message, {
      cause: error,
    });
  }
}

function checkInputs(
  definition: WorkflowDefinition,
  given: Readonly<Record<string, unknown>>,
): WorkflowState['inputs'] {
  // What a client sent, unchecked by the type system at the MCP and CLI edges.
  const raw: unknown = given;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new WorkflowError('invalid_request', 'inputs must be a mapping of input names to values');
  }
  const declared = definition.inputs;
  const missing = declared.filter((name) => given[name] === undefined || given[name] === null);
  if (missing.length > 0) {
    const example = missing.map((name) => `"${name}": "..."`).join(', ');
    throw new WorkflowError(
      'missing_input',
      `missing input${missing.length === 1 ? '' : 's'} ${missing.join(', ')}: workflow ${definition.name} needs ${declared.join(', ')}; call workflow_start with inputs: { ${example} }`,
    );
  }
  const unknown = Object.keys(given).filter((name) => !declared.includes(name));
  if (unknown.length > 0) {
    const hints = unknown.map((name) => {
      const match = closestMatch(name, declared);
      return match === undefined ? name : `${name} (did you mean ${match}?)`;
    });
    throw new WorkflowError(
      'unknown_input',
      `workflow ${definition.name} has no input ${hints.join(', ')}; its inputs are: ${declared.length === 0 ? '(none)' : declared.join(', ')}`,
    );
  }
  // JSON only: what state.json can hold (a function or undefined would be lost on the way).
  return JSON.parse(JSON.stringify(given)) as WorkflowState['inputs'];
}

function runIdOf(given: string | undefined, definition: WorkflowDefinition, now: Date): RunId {
  try {
    if (given !== undefined) return parseRunId(given, 'run_id');
    const stamp = now
      .toISOString()
      .replace(/[-:]/g, '')
      .replace(/\.\d+Z$/, 'Z');
    return parseRunId(`${definition.name.slice(0, 96)}-${stamp}-${randomBytes(2).toString('hex')}`, 'run_id');
  } catch (error) {
    throw asRequestError(error);
  }
}

/** The first pass's instructions must render before anything is written (nothing half-started). */
function checkRenders(
  runId: RunId,
  definition: WorkflowDefinition,
  first: StepPosition,
  inputs: WorkflowState['inputs'],
): void {
  const step = definition.steps[first.step_index];
  if (step === undefined) return;
  const values = passValues(runId, step, first, { inputs, outputs: {}, tasks: first.tasks, artefacts: [] });
  const rendered = assembleInstructions(step, values);
  if (!rendered.ok) {
    throw new WorkflowError(
      'step_blocked',
      `step ${step.id} cannot start with these inputs: ${rendered.message}; nothing was started`,
    );
  }
}
