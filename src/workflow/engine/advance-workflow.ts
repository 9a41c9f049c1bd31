import { openIngestRecords } from '../../artifacts/index.js';
import { openConfinedRoot } from '../../workspace/index.js';
import type { EventLog } from '../../events/index.js';
import { concludeDocument, resolveIngestEnabled } from '../../ingest/index.js';
import type { DocumentIngestSummary } from '../../ingest/index.js';
import type { NodeId } from '../../project/index.js';
import { assembleInstructions } from '../definition/index.js';
import type { WorkflowDefinition, WorkflowStep } from '../definition/index.js';
import { updateWorkflowState } from '../state/index.js';
import type { WorkflowState } from '../state/index.js';
import {
  currentStep,
  nextPosition,
  passNodeId,
  passOf,
  passValues,
  stepDocumentPath,
  passField,
} from './step-position.js';
import type { StepPosition } from './step-position.js';
import { engineObserver, observedPassOf, publicReconciliation } from './create-workflow-observer.js';
import { requireRunning, selectWorkflowRun } from './select-workflow-run.js';
import { stepStartedEvent } from './step-events.js';
import { appendWorkflowEvents, openWorkflowEvents } from './workflow-events.js';
import type { WorkflowEvent } from './workflow-events.js';
import type { WorkflowEngineDeps } from './workflow-engine-deps.js';
import { WorkflowError } from './workflow-error.js';
import { recordStepTrace } from './record-step-trace.js';
import { workflowStatusOf } from './workflow-status-response.js';
import type { WorkflowCompletion, WorkflowStatusResponse } from './workflow-status-response.js';

/** `workflow_advance`'s input (spec workflow-mcp.md). */
export interface AdvanceWorkflowRequest {
  readonly run_id?: string;
  /** The pass's result: kept under the step's `save_as` and written as the step's document. */
  readonly output?: string;
}

/**
 * Ends the current pass: saves `output` under `save_as`, writes it as `docs/<run_id>/<step>[-<pass>].md`
 * through the ingest's `concludeDocument` (ingested when the flag is on), then moves to the next pass or step
 * and returns its status, or the completion; a refused call changes nothing.
 */
export async function advanceWorkflow(
  projectDir: string,
  request: AdvanceWorkflowRequest,
  deps: WorkflowEngineDeps = {},
): Promise<WorkflowStatusResponse | WorkflowCompletion> {
  const { state, definition } = await selectWorkflowRun(projectDir, request.run_id);
  requireRunning(state, 'workflow_advance');
  const step = currentStep(definition, state);
  const output = checkOutput(step, request.output);
  // Read before anything is written: a bad ARTIFACT_INGEST value refuses the call, it changes nothing.
  const ingestEnabled = resolveIngestEnabled({ env: deps.env, config: deps.config }).enabled;
  const pass = passOf(state);
  const observer = engineObserver(deps);
  const ended = await observer?.stepEnding?.(observedPassOf(projectDir, state));
  const reconciliation = publicReconciliation(ended);
  const toRegister = ended === undefined ? [] : (ended.pathsToRegister ?? ended.unregistered);
  if (step.requireRegistration && toRegister.length > 0) {
    throw new WorkflowError(
      'registration_required',
      `step ${step.id} requires registration and these changed files are not registered: ${toRegister.join(', ')}; call register_artefacts with them, then workflow_advance again`,
    );
  }

  const now = deps.now ?? (() => new Date());
  const outputs = savedOutputs(state, step, output);
  const known = { inputs: state.inputs, outputs, tasks: state.tasks };
  const next = nextPosition(definition, state, known);
  const at = now();
  const proposed =
    next === 'end' ? completedState(state, definition, outputs, at) : movedState(state, next, outputs, at);
  if (next !== 'end') checkRenders(definition, proposed);

  const durability = deps.durability ?? deps.config?.ingest.durability ?? 'fsync';
  const events = openWorkflowEvents(projectDir, state.run_id);
  let ingest: DocumentIngestSummary | undefined;
  let documentPath: string | undefined;
  try {
    const written = await updateWorkflowState(
      projectDir,
      state.run_id,
      state.revision,
      async () => {
        // Under the state lock, after the revision check: of two advances only the winner writes its document.
        if (output !== undefined) {
          documentPath = stepDocumentPath(state.run_id, step.id, pass);
          ingest = await writeStepDocument(projectDir, state, step, documentPath, output, {
            nodeId: passNodeId(step.id, pass),
            enabled: ingestEnabled,
            deps,
            durability,
            events,
          });
        }
        return proposed;
      },
      { durability, now, ...(deps.lockWaitMs === undefined ? {} : { lockWaitMs: deps.lockWaitMs }) },
    );
    // After the state is written: a losing advance records no trace either.
    await recordStepTrace({
      projectDir,
      state,
      step,
      nodeId: passNodeId(step.id, pass),
      pass,
      instructions: workflowStatusOf(state, definition).instructions,
      finishedAt: at,
      ...(output === undefined || documentPath === undefined
        ? {}
        : { document: { path: documentPath, text: output } }),
      ...(ingest === undefined ? {} : { ingest }),
      ...(reconciliation === undefined ? {} : { reconciliation }),
      durability,
      ...(deps.now === undefined ? {} : { now: deps.now }),
      events,
    });
    const completed: WorkflowEvent = {
      level: 'INFO',
      event: 'step.completed',
      fields: {
        step: step.id,
        step_type: step.type,
        ...passField(pass),
        ...(documentPath === undefined ? {} : { document: documentPath }),
        ...(ingest === undefined ? {} : { ingest }),
        ...(reconciliation === undefined ? {} : { reconciliation }),
      },
    };
    if (written.status === 'complete' && written.summary !== undefined) {
      await appendWorkflowEvents(projectDir, state.run_id, [completed, completedEvent(written)], events);
      return { run_id: written.run_id, status: 'complete', summary: written.summary };
    }
    await appendWorkflowEvents(projectDir, state.run_id, [completed, stepStartedEvent(written)], events);
    await observer?.stepStarted?.(observedPassOf(projectDir, written));
    return workflowStatusOf(written, definition);
  } finally {
    await events.close().catch(() => undefined);
  }
}

function checkOutput(step: WorkflowStep, output: unknown): string | undefined {
  if (output !== undefined && typeof output !== 'string') {
    throw new WorkflowError(
      'invalid_request',
      `output must be text (the step's result), not ${typeof output}`,
    );
  }
  if (output === undefined && step.saveAs !== undefined) {
    throw new WorkflowError(
      'output_required',
      `step ${step.id} saves its result as ${step.saveAs}; call workflow_advance with output: your result`,
    );
  }
  return output;
}

/** The outputs after this pass: an action or ralph step keeps the latest text, a loop the list of its passes. */
function savedOutputs(
  state: WorkflowState,
  step: WorkflowStep,
  output: string | undefined,
): WorkflowState['outputs'] {
  if (step.saveAs === undefined || output === undefined) return state.outputs;
  if (step.type !== 'loop') return { ...state.outputs, [step.saveAs]: output };
  const earlier = state.outputs[step.saveAs];
  const kept: readonly string[] = (state.task?.index ?? 1) > 1 && typeof earlier === 'object' ? earlier : [];
  return { ...state.outputs, [step.saveAs]: [...kept, output] };
}

function movedState(
  state: WorkflowState,
  next: StepPosition,
  outputs: WorkflowState['outputs'],
  at: Date,
): WorkflowState {
  // Rebuilt without task/ralphIteration, so a field of the previous step's type never lingers.
  const rest = Object.fromEntries(
    Object.entries(state).filter(([key]) => key !== 'task' && key !== 'ralphIteration'),
  ) as Omit<WorkflowState, 'task' | 'ralphIteration'>;
  return {
    ...rest,
    step: next.step,
    stepType: next.stepType,
    step_index: next.step_index,
    step_started_at: at.toISOString(),
    tasks: next.tasks,
    outputs,
    // A new pass: its declared-versus-observed window starts with nothing claimed.
    step_artefacts: [],
    ...(next.task === undefined ? {} : { task: next.task }),
    ...(next.ralphIteration === undefined ? {} : { ralphIteration: next.ralphIteration }),
  };
}

function completedState(
  state: WorkflowState,
  definition: WorkflowDefinition,
  outputs: WorkflowState['outputs'],
  at: Date,
): WorkflowState {
  return {
    ...state,
    status: 'complete',
    outputs,
    finished_at: at.toISOString(),
    summary: {
      workflow: definition.name,
      completed_at: at.toISOString(),
      duration_ms: Math.max(0, at.getTime() - Date.parse(state.started_at)),
      steps_completed: definition.steps.length,
      results: outputs,
    },
  };
}

/** The next pass must render with the outputs so far; otherwise the agent resubmits, nothing is changed. */
function checkRenders(definition: WorkflowDefinition, proposed: WorkflowState): void {
  const step = currentStep(definition, proposed);
  const rendered = assembleInstructions(step, passValues(proposed.run_id, step, proposed, proposed));
  if (!rendered.ok) {
    throw new WorkflowError(
      'step_blocked',
      `step ${step.id} cannot start with the outputs so far: ${rendered.message}; nothing was changed: call workflow_advance again with an output that provides it`,
    );
  }
}

function completedEvent(state: WorkflowState): WorkflowEvent {
  return {
    level: 'INFO',
    event: 'workflow.completed',
    fields: {
      workflow: state.workflow,
      steps_completed: state.summary?.steps_completed ?? 0,
      duration_ms: state.summary?.duration_ms ?? 0,
    },
  };
}

async function writeStepDocument(
  projectDir: string,
  state: WorkflowState,
  step: WorkflowStep,
  docPath: string,
  output: string,
  context: {
    readonly nodeId: NodeId;
    readonly enabled: boolean;
    readonly deps: WorkflowEngineDeps;
    readonly durability: 'fsync' | 'none';
    readonly events: EventLog;
  },
): Promise<DocumentIngestSummary | undefined> {
  const { deps, events } = context;
  const records = openIngestRecords({
    projectDir,
    runId: state.run_id,
    durability: context.durability,
    ...(deps.now === undefined ? {} : { now: deps.now }),
    onFailure: ({ message }) => {
      events.write('ERROR', 'artifacts.error', { node_id: context.nodeId, code: 'record_failed', message });
    },
  });
  const root = await openConfinedRoot(projectDir);
  try {
    const outcome = await concludeDocument({
      projectDir,
      root,
      runId: state.run_id,
      nodeId: context.nodeId,
      agentId: step.agent ?? 'workflow',
      docPath,
      text: output,
      records,
      events: events.child({ node_id: context.nodeId }),
      subject: 'step',
      ingest: {
        enabled: context.enabled,
        sourceKind: 'workflow',
        mode: 'single',
        durability: context.durability,
        ...(deps.config === undefined ? {} : { limits: deps.config.ingest.limits }),
      },
    });
    if (outcome.status === 'failed') {
      throw new WorkflowError(
        'output_not_written',
        `${outcome.message}; nothing was changed: fix the path and call workflow_advance again`,
      );
    }
    return outcome.ingest;
  } finally {
    await root.close();
    await records.close();
  }
}
