import type { ProjectRef } from '../../store/index.js';
import { DEFAULT_INGEST_LIMITS } from '../../config/index.js';
import { exportAtRunEnd } from '../../git/index.js';
import type { TerminalState } from '../../contracts/index.js';
import { pushRunNow } from '../../fleet/index.js';
import { resolveIngestEnabled } from '../../ingest/index.js';
import { startStepSpan } from '../../telemetry/index.js';
import type { SpanEnd } from '../../telemetry/index.js';
import type { WorkflowStep } from '../definition/index.js';
import { updateWorkflowState } from '../state/index.js';
import type { WorkflowContractState, WorkflowState } from '../state/index.js';
import {
  engineObserver,
  observedPassOf,
  observePassStart,
  publicReconciliation,
} from './create-workflow-observer.js';
import {
  maxFixAttemptsOf,
  planAdvance,
  readOutputSubmissions,
  readPassSubmissions,
  submitOutputBlocks,
  recordStepTrace,
  stepIngestReportOf,
  writeStepDocument,
} from './advance/index.js';
import type { WorkflowFailure, StepIngestReport, StepDocumentIngest } from './advance/index.js';
import { requireRunning, selectWorkflowRun } from './select-workflow-run.js';
import { stepStartedEvent } from './step-events.js';
import { currentStep, passField, passNodeId, passOf, stepDocumentPath } from './step-position.js';
import { openWorkflowEvents, revisionEventOf } from './workflow-events.js';
import type { WorkflowEvent } from './workflow-events.js';
import type { WorkflowEngineDeps } from './workflow-engine-deps.js';
import { WorkflowError } from './workflow-error.js';
import { workflowStatusOf } from './workflow-status-response.js';
import type { WorkflowCompletion, WorkflowStatusResponse } from './workflow-status-response.js';
import { declareWorkflowTerminal, terminalEvent, workflowTerminalOf } from './workflow-terminal.js';

/** `workflow_advance`'s input (spec workflow-mcp.md). */
export interface AdvanceWorkflowRequest {
  readonly run_id?: string;
  /** The pass's result: kept under the step's `save_as` and written as the step's document. */
  readonly output?: string;
}

/**
 * What `workflow_advance` returns: the next status or the completion and, when the call handed in an output,
 * `ingest`, what became of it (the document and, with the ingest on, its blocks).
 */
export type AdvanceWorkflowResult = (WorkflowStatusResponse | WorkflowCompletion) & {
  readonly ingest?: StepIngestReport;
};

/**
 * Ends the current pass: judges its `contract:` (the output's artifact= blocks and the pass's submit_artifact
 * calls), saves `output` under `save_as`, writes it as `docs/<run_id>/<step>[-<pass>].md` through the ingest's
 * `concludeDocument` (ingested when the flag is on), then moves to the next pass or step, re-asks the same pass
 * with a fix request, completes, or fails (a blocked contract, a spent budget), declaring the terminal state
 * of an ending; a refused call changes nothing.
 */
export async function advanceWorkflow(
  projectDir: ProjectRef,
  request: AdvanceWorkflowRequest,
  deps: WorkflowEngineDeps = {},
): Promise<AdvanceWorkflowResult> {
  const { state, definition } = await selectWorkflowRun(projectDir, request.run_id);
  requireRunning(state, 'workflow_advance');
  const step = currentStep(definition, state);
  const output = checkOutput(
    step,
    request.output,
    deps.config?.ingest.limits.maxDocumentBytes ?? DEFAULT_INGEST_LIMITS.maxDocumentBytes,
  );
  // Read before anything is written: a bad ARTIFACT_INGEST value refuses the call, it changes nothing.
  const ingestEnabled = resolveIngestEnabled({ env: deps.env, config: deps.config }).enabled;
  const pass = passOf(state);
  const nodeId = passNodeId(step.id, pass);
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
  // Judged before anything is written: the blocks are checked in memory, submitted only by the winning advance.
  const blocks = await readOutputSubmissions(
    state.run_id,
    output,
    deps.config === undefined
      ? {}
      : {
          timeLimitMs: deps.config.ingest.limits.maxParseMs,
          parser: deps.config.ingest.parser,
          maxBlocks: deps.config.ingest.limits.maxBlocks,
        },
  );
  const earlier = step.contract === undefined ? [] : await readPassSubmissions(projectDir, state, nodeId);
  const at = now();
  const plan = planAdvance(definition, state, step, output, [...earlier, ...blocks.attempt], at);
  // The instructions the agent was given for this attempt (a fix request included), for the trace.
  const instructions = workflowStatusOf(state, definition).instructions;

  const durability = deps.durability ?? deps.config?.ingest.durability ?? 'fsync';
  const events = await openWorkflowEvents(projectDir, state.run_id);
  // The pass's live span, in the run's derived trace: a workflow's steps run in separate invocations.
  const stepSpan = startStepSpan({
    runId: state.run_id,
    workflow: state.workflow,
    stepId: step.id,
    pass: pass ?? 1,
    startedAt: state.step_started_at,
  });
  let stepWritten = false;
  let ingest: StepDocumentIngest | undefined;
  let documentPath: string | undefined;
  let terminal: TerminalState | undefined;
  const passDone =
    plan.kind === 'moved' || plan.kind === 'complete' || (plan.kind === 'failed' && plan.passDone);
  // The events of the state this advance writes: kept in it and appended right after it, under the lock (D89).
  const eventsOf = (written: WorkflowState): WorkflowEvent[] => {
    const passFields = {
      step: step.id,
      step_type: step.type,
      ...passField(pass),
      ...(documentPath === undefined ? {} : { document: documentPath }),
    };
    const contractFields = plan.contract === undefined ? {} : { contract: contractEventField(plan.contract) };
    const completed: WorkflowEvent = {
      level: 'INFO',
      event: 'step.completed',
      fields: {
        ...passFields,
        ...(ingest === undefined ? {} : { ingest: ingest.summary }),
        ...(reconciliation === undefined ? {} : { reconciliation }),
        ...contractFields,
      },
    };
    const declared = terminal === undefined ? [] : [terminalEvent(terminal)];
    switch (plan.kind) {
      case 'moved':
        return [completed, stepStartedEvent(written)];
      case 'fix_needed':
        return [
          {
            level: 'WARNING',
            event: 'step.fix_needed',
            fields: {
              ...passFields,
              ...contractFields,
              max_fix_attempts: maxFixAttemptsOf(definition.budgets),
            },
          },
        ];
      case 'complete':
        return [completed, completedEvent(written), ...declared];
      case 'failed': {
        const ending: WorkflowEvent = plan.passDone
          ? completed
          : {
              level: 'WARNING',
              event: 'step.failed',
              fields: { ...passFields, ...contractFields, reason: plan.failure.reason },
            };
        return [ending, failedEvent(written, plan.failure), ...declared];
      }
    }
  };
  try {
    const written = await updateWorkflowState(
      projectDir,
      state.run_id,
      state.revision,
      async () => {
        // Under the state lock, after the revision check: of two advances only the winner writes its document
        // and submits its artifacts.
        if (output !== undefined) {
          documentPath = stepDocumentPath(state.run_id, step.id, pass);
          const written = documentPath;
          ingest = await stepSpan.within(() =>
            writeStepDocument(projectDir, state, step, written, output, {
              nodeId,
              enabled: ingestEnabled,
              deps,
              durability,
              events,
            }),
          );
        }
        await submitOutputBlocks(
          projectDir,
          {
            runId: state.run_id,
            nodeId,
            agentId: step.agent ?? 'workflow',
            events,
            durability,
            ...(deps.now === undefined ? {} : { now: deps.now }),
          },
          blocks.accepted,
        );
        if (plan.kind === 'moved') {
          // The next pass's start snapshot before the state that starts it: a kill never leaves a pass unobserved.
          await observePassStart(observer, projectDir, plan.proposed);
        }
        if (plan.kind !== 'complete' && plan.kind !== 'failed') return plan.proposed;
        terminal = await workflowTerminalOf(
          projectDir,
          state.run_id,
          plan.kind === 'failed' ? plan.failure : undefined,
          at,
        );
        return { ...plan.proposed, terminal };
      },
      {
        durability,
        now,
        ...(deps.lockWaitMs === undefined ? {} : { lockWaitMs: deps.lockWaitMs }),
        events: (next) => eventsOf(next).map(revisionEventOf),
      },
    );
    const contractError =
      passDone || plan.contract === undefined
        ? undefined
        : { code: plan.contract.state, message: plan.contract.reason ?? plan.contract.state };
    // After the state is written: a losing advance records no trace either.
    await recordStepTrace({
      projectDir,
      state,
      step,
      nodeId,
      pass,
      instructions,
      finishedAt: at,
      ...(output === undefined || documentPath === undefined
        ? {}
        : { document: { path: documentPath, text: output } }),
      ...(ingest === undefined ? {} : { ingest: ingest.summary }),
      ...(reconciliation === undefined ? {} : { reconciliation }),
      ...(contractError === undefined ? {} : { error: contractError }),
      durability,
      ...(deps.now === undefined ? {} : { now: deps.now }),
      events,
    });
    if (terminal !== undefined) await declareWorkflowTerminal(projectDir, state.run_id, terminal, durability);
    stepWritten = true;
    stepSpan.end(stepSpanEndOf(plan));
    // The run has ended: `git: { export: true }` exports it now, fail-open (an event, never a failed advance).
    if (terminal !== undefined && deps.config?.git.export === true)
      await exportAtRunEnd(projectDir, state.run_id, events, deps.config.git.repo);
    const report = documentPath === undefined ? {} : { ingest: stepIngestReportOf(documentPath, ingest) };
    if (plan.kind === 'complete') {
      return {
        run_id: written.run_id,
        status: 'complete',
        // The schema requires a summary once complete; completedState always sets one.
        summary: written.summary ?? completionSummaryMissing(),
        ...(terminal === undefined ? {} : { terminal }),
        ...report,
      };
    }
    return { ...workflowStatusOf(written, definition), ...report };
  } catch (error) {
    // A refused or failed advance changes nothing; its span says why.
    stepSpan.fail(error);
    throw error;
  } finally {
    await events.close().catch(() => undefined);
    // Local first: the step is all on disk (its events flushed); the remote gets it now, or the outbox keeps the
    // run for `artifact-ingest push`. Fail-open: this never throws.
    if (stepWritten && deps.remote !== undefined) {
      await pushRunNow({ project: projectDir, remote: deps.remote, runId: state.run_id });
    }
  }
}

/** The step span's end: the pass moved on or completed, needs a fix, or failed the run. */
function stepSpanEndOf(plan: ReturnType<typeof planAdvance>): SpanEnd {
  switch (plan.kind) {
    case 'moved':
    case 'complete':
      return { status: 'completed' };
    case 'fix_needed':
      return { status: 'fix_needed', error: plan.contract.reason ?? 'fix_needed' };
    case 'failed':
      return { status: 'failed', error: plan.failure.reason };
  }
}

/**
 * Decides what the advance does, from the state as read and the pass's submissions: the contract's verdict
 * first, then (when more work would be handed out) the budgets; throws `step_blocked` if the next pass cannot
 * be rendered. Every plan counts this call in `agent_calls`.
 */
/** A contract verdict as events carry it: the type, the state, the attempt, the artifact or the error paths. */
function contractEventField(contract: WorkflowContractState): Record<string, unknown> {
  return {
    type: contract.type,
    state: contract.state,
    fix_attempt: contract.fix_attempt,
    ...(contract.artifact === undefined ? {} : { artifact: contract.artifact }),
    ...(contract.reason === undefined ? {} : { reason: contract.reason }),
    ...(contract.errors.length === 0 ? {} : { errors: contract.errors.map((error) => error.path) }),
  };
}

function failedEvent(state: WorkflowState, failure: WorkflowFailure): WorkflowEvent {
  return {
    level: 'WARNING',
    event: 'workflow.failed',
    fields: {
      workflow: state.workflow,
      step: state.step,
      ...passField(passOf(state)),
      failure: failure.kind,
      ...(failure.kind === 'budget_exceeded' ? { budget: failure.budget } : {}),
      reason: failure.reason,
    },
  };
}

function completionSummaryMissing(): never {
  throw new Error('unreachable: a complete workflow state has a summary');
}

function checkOutput(step: WorkflowStep, output: unknown, maxBytes: number): string | undefined {
  if (output !== undefined && typeof output !== 'string') {
    throw new WorkflowError(
      'invalid_request',
      `output must be text (the step's result), not ${typeof output}`,
    );
  }
  // The output becomes the step's document: one over max_document_bytes is refused here, as by the CLI and the
  // runtime, before it is judged, saved, written or recorded.
  const bytes = output === undefined ? 0 : Buffer.byteLength(output, 'utf8');
  if (bytes > maxBytes) {
    throw new WorkflowError(
      'invalid_request',
      `output is ${String(bytes)} bytes, over max_document_bytes (${String(maxBytes)} bytes); nothing was changed: shorten it (or raise ingest.limits.max_document_bytes in artifact-ingest.config.yaml) and call workflow_advance again`,
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
