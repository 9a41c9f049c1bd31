import { z } from 'zod';
import { CONTRACT_DOC_URI_PREFIX } from '../contracts/index.js';

// Inputs are strict objects: a misspelt key (`runId`) is refused instead of silently meaning "the one running".
const runId = z
  .string()
  .describe('the run to act on; leave it out when exactly one workflow in the project is running');

/** `workflow_list`'s input: nothing. */
export const workflowListInput = z.strictObject({});

/** `workflow_start`'s input (spec workflow-mcp.md, tool table). */
export const workflowStartInput = z.strictObject({
  workflow: z
    .string()
    .describe(
      "a workflow name (the project's workflows/<name>.yaml, then the built-ins) or the path, relative to the project root, of a YAML file under workflows/ that stays inside the project",
    ),
  inputs: z
    .record(z.string(), z.unknown())
    .optional()
    .describe('the values of the inputs the workflow declares, e.g. { "feature": "a login page" }'),
  run_id: z.string().optional().describe('the id of the new run (default: <workflow>-<UTC time>-<4 hex>)'),
});

/** `workflow_status`'s input. */
export const workflowStatusInput = z.strictObject({ run_id: runId.optional() });

/** `workflow_advance`'s input. */
export const workflowAdvanceInput = z.strictObject({
  run_id: runId.optional(),
  output: z
    .string()
    .optional()
    .describe("the step's result, kept under its save_as name and written as the step's document"),
});

/**
 * `register_artefacts`'s input: `paths` is validated by the engine, not here, so that a non-array or a
 * non-string entry gets the engine's message ("paths must be an array of strings") instead of the SDK's
 * generic validation text; the metadata still advertises an array of strings to the client.
 */
export const registerArtefactsInput = z
  .strictObject({
    paths: z
      .unknown()
      .optional()
      .meta({
        type: 'array',
        items: { type: 'string' },
        description: 'the files to register, absolute or relative to the project root',
      }),
    run_id: runId.optional(),
  })
  // Optional to zod (so a missing `paths` reaches the engine's message), required to the client.
  .meta({ required: ['paths'] });

/** `workflow_abort`'s input. */
export const workflowAbortInput = z.strictObject({
  run_id: runId.optional(),
  reason: z.string().optional().describe('why, kept in the state and the workflow.aborted event'),
});

/**
 * What a reply too large for one message left out (docs/mcp.md, "Limits"): each shortened field's path, with the
 * items of a list or the characters of a text that are not in the reply. Absent when nothing was left out.
 */
const leftOut = z
  .record(z.string(), z.number())
  .optional()
  .describe(
    "present when the reply was shortened to fit one message: each shortened field's path and how many list items or text characters it left out",
  );

const reconciliation = z.object({ unregistered: z.array(z.string()), phantom: z.array(z.string()) });

const fieldError = z.object({
  path: z.string(),
  expected: z.string(),
  got: z.string().optional(),
  message: z.string(),
});

const contract = z.object({
  type: z.string(),
  state: z.enum(['pending', 'fix_needed', 'done', 'blocked']),
  fix_attempt: z.number(),
  max_fix_attempts: z.number(),
  errors: z.array(fieldError),
  reason: z.string().optional(),
  artifact: z.string().optional(),
});

const terminal = z.object({
  state: z.enum(['done', 'blocked', 'budget_exceeded', 'regression']),
  artifact: z.string().nullable(),
  reason: z.string(),
  at: z.string(),
});

const summary = z.object({
  workflow: z.string(),
  completed_at: z.string(),
  duration_ms: z.number(),
  steps_completed: z.number(),
  results: z.record(z.string(), z.unknown()),
});

/** The status every workflow tool but `workflow_list` and `register_artefacts` returns (docs/workflow-engine.md). */
export const workflowStatusOutput = z.object({
  run_id: z.string(),
  workflow: z.string(),
  status: z.enum(['running', 'complete', 'failed', 'aborted']),
  step: z.string(),
  stepType: z.enum(['action', 'loop', 'ralph']),
  step_number: z.number(),
  total_steps: z.number(),
  agent: z.string().nullable(),
  delegate: z.boolean(),
  instructions: z.string(),
  next_action: z.object({ tool: z.string(), expecting: z.string() }),
  progress: z.object({ completed: z.number(), total: z.number() }),
  task: z.object({ index: z.number(), total: z.number(), value: z.unknown() }).optional(),
  subStepIndex: z.number().optional(),
  totalSubSteps: z.number().optional(),
  ralphIteration: z.number().optional(),
  ralphTotal: z.number().optional(),
  artefacts: z.array(z.string()),
  reconciliation: reconciliation.optional(),
  contract: contract.optional(),
  reason: z.string().optional(),
  terminal: terminal.optional(),
  left_out: leftOut,
});

const listedIngestBlock = z.object({
  index: z.number(),
  declared_file: z.string(),
  status: z.enum(['written', 'skipped', 'rejected']),
  workspace_path: z.string().optional(),
  reason: z.string().optional(),
  warnings: z.array(z.string()).optional(),
});

/** What became of the output an advance handed in (docs/workflow-engine.md, "Step documents and ingest"). */
const stepIngest = z
  .object({
    document: z.string(),
    enabled: z.boolean(),
    total_blocks: z.number().optional(),
    written: z.number().optional(),
    skipped: z.number().optional(),
    rejected: z.number().optional(),
    manifest_path: z.string().optional(),
    problems: z.array(z.string()).optional(),
    io_errors: z.number().optional(),
    io_error: z.string().optional(),
    blocks: z.array(listedIngestBlock).optional(),
    left_out: z.number().optional(),
  })
  .describe(
    "present when output was given: the step's document and, with the ingest on, its file= blocks (up to 50, the refused ones first; left_out counts the others, which the manifest lists), each with declared_file, status (written, skipped or rejected), workspace_path, reason and any warnings (such as workspace_prefix)",
  );

/**
 * `workflow_advance`'s result: the next status, or on completion `{ run_id, status: "complete", summary }`, and
 * `ingest` when an output was handed in; one object schema (MCP output schemas are objects), so the status
 * fields are optional here.
 */
export const workflowAdvanceOutput = workflowStatusOutput.partial().extend({
  run_id: z.string(),
  status: z.enum(['running', 'complete', 'failed', 'aborted']),
  summary: summary.optional(),
  ingest: stepIngest.optional(),
});

/**
 * `submit_artifact`'s input: `payload` is any JSON value to zod, so that a missing or malformed one gets the
 * canonical path's field errors ("(root): expected an object") instead of the SDK's validation text; the
 * client is told it is an object, as every artifact type is.
 */
export const submitArtifactInput = z
  .strictObject({
    type: z
      .string()
      .describe(
        'the artifact type: development_result, issues, fix_result, commit_message, commit_cleanup, planning_analysis_decision, review_analysis_decision, development_analysis_decision, smoke_test_result or product_spec',
      ),
    payload: z
      .unknown()
      .optional()
      .meta({
        type: 'object',
        description: `the artifact itself, one JSON object in the format of the resource ${CONTRACT_DOC_URI_PREFIX}<type>`,
      }),
    run_id: z
      .string()
      .optional()
      .describe(
        'the workflow (or graph) run; leave it out when exactly one workflow in the project is running',
      ),
  })
  // Optional to zod (so a missing payload reaches the canonical path's "(root)" error), required to the client.
  .meta({ required: ['type', 'payload'] });

/** `submit_artifact`'s result: where the canonical path wrote it and the version it recorded. */
export const submitArtifactOutput = z.object({
  run_id: z.string(),
  type: z.string(),
  path: z.string(),
  content_hash: z.string(),
  bytes: z.number(),
  task: z.string(),
  previous: z.string().optional(),
  left_out: leftOut,
});

/** `workflow_list`'s result. */
export const workflowListOutput = z.object({
  workflows: z.array(
    z.object({
      name: z.string(),
      version: z.string(),
      description: z.string(),
      steps: z.number(),
      inputs: z.array(z.string()),
    }),
  ),
  broken: z
    .array(
      z.object({
        name: z.string(),
        file: z.string(),
        error: z.string(),
      }),
    )
    .describe(
      'the files of workflows/ that do not load, each with the error workflow_start would give for it; they cannot be started until fixed',
    ),
  left_out: leftOut,
});

/** `register_artefacts`'s result. */
export const registerArtefactsOutput = z.object({
  run_id: z.string(),
  registered: z.array(z.string()),
  duplicates: z.array(z.string()),
  invalid: z.array(z.object({ path: z.string(), code: z.string(), message: z.string() })),
  left_out: leftOut,
});
