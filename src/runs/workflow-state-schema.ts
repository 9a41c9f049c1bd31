import { z } from 'zod';
import { CONTRACT_TYPES, terminalStateSchema } from '../contracts/index.js';
import { ID_PATTERN, ID_RULE, nodeIdSchema, runIdSchema } from '../project/index.js';
import { WORKFLOW_STEP_TYPES } from './workflow-step-types.js';
import { hostNameSchema } from './run-host.js';
import { revisionEventSchema } from './revision-event.js';
import { workflowDefinitionPath } from './workflow-state-paths.js';

const count = z.number().int().nonnegative();
const timestamp = z.iso.datetime();
/** A `save_as` value: the submitted text, or (a loop step's) the list of its passes' outputs in task order. */
const savedOutput = z.union([z.string(), z.array(z.string()).readonly()]);

/** The step types of a definition (seed 000): one pass, one pass per task of a list, or the same step n times. */
export const workflowStepTypeSchema = z.enum(WORKFLOW_STEP_TYPES);

/** Where a workflow is: `running` until its last step completes, it fails, or it is aborted. */
export const workflowStatusSchema = z.enum(['running', 'complete', 'failed', 'aborted']);

/** The current pass of a `loop` step: the task's 1-based number (`{task.index}`), how many, and the task itself. */
export const workflowTaskSchema = z
  .object({ index: z.number().int().positive(), total: z.number().int().positive(), value: z.json() })
  .strict()
  .refine((task) => task.index <= task.total, { message: 'task.index must not exceed task.total' });

/** The completion summary (seed 003): every `save_as` value is in `results`. */
export const workflowSummarySchema = z
  .object({
    workflow: z.string().min(1),
    completed_at: timestamp,
    duration_ms: count,
    steps_completed: count,
    results: z.record(z.string(), savedOutput).readonly(),
  })
  .strict();

/** A project-relative POSIX path: no leading `/`, no drive, no backslash, no empty, `.` or `..` segment. */
export const projectRelativePathSchema = z
  .string()
  .min(1)
  .refine(
    (value) =>
      !value.startsWith('/') &&
      !value.includes('\\') &&
      !/^[A-Za-z]:/.test(value) &&
      value.split('/').every((segment) => segment !== '' && segment !== '.' && segment !== '..'),
    {
      message:
        'must be a project-relative path such as "src/app.ts" (no "/" at the start, no "." or ".." segment)',
    },
  );

/** One field error of a refused artifact, as contracts' `FieldError` (a path, the expected value, what was there). */
const fieldErrorSchema = z
  .object({ path: z.string(), expected: z.string(), got: z.string().exactOptional(), message: z.string() })
  .strict();

/** Where the current pass stands against its step's `contract:`, once it was judged (spec contracts.md). */
export const workflowContractStateSchema = z
  .object({
    type: z.enum(CONTRACT_TYPES),
    /** `fix_needed` while the pass is re-asked; `done` or `blocked` once judged for good. */
    state: z.enum(['fix_needed', 'done', 'blocked']),
    /** Fix requests sent in this pass so far (1 after the first `fix_needed`). */
    fix_attempt: count,
    /** Why it is not done, in one line. */
    reason: z.string().exactOptional(),
    /** The field errors of the latest refused submission of the type, if that is why. */
    errors: z.array(fieldErrorSchema).readonly().default([]),
    /** The project-relative path of the artifact that satisfied or blocked it. */
    artifact: z.string().exactOptional(),
  })
  .strict();

/** The fields of a workflow state, each checked alone; {@link workflowStateSchema} adds the rules between them. */
const workflowStateFields = z
  .object({
    /** Tells a workflow state from the graph runtime's state.json in the same place. */
    kind: z.literal('workflow'),
    version: z.literal(1),
    run_id: runIdSchema,
    /** The machine that started the run (`ARTIFACT_INGEST_HOST`, else its host name); absent in older states. */
    host: hostNameSchema.exactOptional(),
    /** The definition's name. */
    workflow: z.string().min(1),
    /** sha256 hex of the pinned definition text. */
    definition_hash: z.string().regex(/^[0-9a-f]{64}$/),
    /** Project-relative path of the pinned copy: always `.agent/runs/<run_id>/workflow.yaml`. */
    definition_path: z.string().min(1),
    inputs: z.record(z.string(), z.json()).readonly(),
    status: workflowStatusSchema,
    /** Id of the current step (the last one once the workflow is no longer running). */
    step: nodeIdSchema,
    stepType: workflowStepTypeSchema,
    /** 0-based position of `step` in the pinned definition's steps. */
    step_index: count,
    /** When the current step (or pass) started: the start of its declared-versus-observed window. */
    step_started_at: timestamp,
    task: workflowTaskSchema.exactOptional(),
    /** 1-based iteration of a `ralph` step (`{iteration}`). */
    ralphIteration: z.number().int().positive().exactOptional(),
    /** The task list of each `loop` step, fixed when the loop starts so a resume sees the same list. */
    tasks: z.record(z.string().regex(ID_PATTERN, ID_RULE), z.array(z.json()).readonly()).readonly(),
    /** `save_as` name -> the output the agent submitted (a loop step: the list of its passes' outputs). */
    outputs: z.record(z.string(), savedOutput).readonly(),
    summary: workflowSummarySchema.exactOptional(),
    /** Registered files, project-relative, in registration order, without duplicates. */
    artefacts: z.array(projectRelativePathSchema).readonly().default([]),
    /**
     * Paths claimed (registered or re-registered) during the current pass, without duplicates: what declared
     * versus observed compares with; reset when a pass starts. A state without it loads as `[]`.
     */
    step_artefacts: z.array(projectRelativePathSchema).readonly().default([]),
    /** The current pass's contract verdict (absent while the pass has not been judged, and in older states). */
    contract: workflowContractStateSchema.exactOptional(),
    /** `workflow_advance` calls that changed the run, fix re-asks included (`max_agent_calls`); older states: 0. */
    agent_calls: count.default(0),
    /** The run's one terminal state once it completed or failed (also in terminal.json); never on an abort. */
    terminal: terminalStateSchema.exactOptional(),
    /** Why the workflow was aborted or failed. */
    reason: z.string().exactOptional(),
    started_at: timestamp,
    updated_at: timestamp,
    finished_at: timestamp.exactOptional(),
    /** Incremented by every write; the compare-and-swap of `updateWorkflowState` checks it. */
    revision: count,
    /**
     * The events of the change that wrote this revision, appended to events.jsonl (with `state_revision`) right
     * after the write; whoever finds them missing there appends them, marked `recovered` (D89). Absent: none.
     */
    revision_events: z.array(revisionEventSchema).readonly().exactOptional(),
  })
  .strict();

/**
 * Schema of a workflow run's `.agent/runs/<run_id>/state.json` (version 1): seed 000's `WorkflowState`
 * fields plus what a restarted engine needs to continue exactly; a state without `artefacts` loads as `[]`.
 */
export const workflowStateSchema = workflowStateFields.superRefine((state, context) => {
  const issue = (path: string, message: string): void => {
    context.addIssue({ code: 'custom', path: [path], message });
  };
  if (state.definition_path !== workflowDefinitionPath(state.run_id)) {
    issue('definition_path', `must be ${workflowDefinitionPath(state.run_id)}`);
  }
  if (state.task !== undefined && state.stepType !== 'loop') issue('task', 'is only set on a loop step');
  if (state.ralphIteration !== undefined && state.stepType !== 'ralph') {
    issue('ralphIteration', 'is only set on a ralph step');
  }
  if (new Set(state.artefacts).size !== state.artefacts.length) issue('artefacts', 'has a duplicate path');
  if (new Set(state.step_artefacts).size !== state.step_artefacts.length) {
    issue('step_artefacts', 'has a duplicate path');
  }
  if (state.status === 'complete' && state.summary === undefined) {
    issue('summary', 'is required once the workflow is complete');
  }
  if (state.terminal !== undefined && state.status !== 'complete' && state.status !== 'failed') {
    issue('terminal', `is only set once the workflow is complete or failed, not ${state.status}`);
  }
  if (state.status !== 'running' && state.finished_at === undefined) {
    issue('finished_at', `is required once the workflow is ${state.status}`);
  }
});

/**
 * The few fields of a workflow state that a listing of runs shows, checked by the same field schemas; every
 * other field is left to {@link workflowStateSchema}, so a state the engine would refuse for another field is
 * still listed with its workflow, status and times.
 */
export const workflowStateHeaderSchema = workflowStateFields
  .pick({ kind: true, workflow: true, status: true, started_at: true, updated_at: true, step_index: true })
  // A host the engine would refuse is left out, not a reason to list the run as unreadable.
  .extend({ host: hostNameSchema.optional().catch(undefined) })
  .strip();

/** A workflow run's state as stored in state.json. */
export type WorkflowState = Readonly<z.output<typeof workflowStateSchema>>;
/** One of `running | complete | failed | aborted`. */
export type WorkflowStatus = z.output<typeof workflowStatusSchema>;
/** The current task of a loop step. */
export type WorkflowTask = z.output<typeof workflowTaskSchema>;
/** The current pass's contract verdict as stored. */
export type WorkflowContractState = z.output<typeof workflowContractStateSchema>;
/** The completion summary kept in a complete workflow's state. */
export type WorkflowCompletionSummary = z.output<typeof workflowSummarySchema>;

/** The fields a change may never alter: the run's identity, its pinned definition and its start. */
export const FIXED_STATE_FIELDS = [
  'kind',
  'version',
  'run_id',
  'host',
  'workflow',
  'definition_hash',
  'definition_path',
  'started_at',
] as const satisfies readonly (keyof WorkflowState)[];
