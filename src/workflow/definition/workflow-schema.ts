import * as z from 'zod';
import { budgetsSchema, contractTypeSchema } from '../../contracts/index.js';
import { closestMatch, describeValue, textSchema, withRules, type AllowedKeys } from '../../config/index.js';
import { findSecret, ID_PATTERN, ID_RULE, SECRET_IN_ID } from '../../project/index.js';
import { checkWorkflowRules } from './check-workflow-rules.js';
import {
  DEFAULT_NEXT_ACTION,
  WORKFLOW_STEP_TYPES,
  type WorkflowBody,
  type WorkflowStep,
} from './workflow-definition.js';
import { parseWorkflowTemplate, TEMPLATE_NAME_PATTERN, type WorkflowTemplate } from './workflow-template.js';

/** Most steps a workflow may have. */
export const MAX_WORKFLOW_STEPS = 200;

/** Most passes of a ralph step (`n`). */
export const MAX_RALPH_PASSES = 100;

const STEP_TYPES = WORKFLOW_STEP_TYPES;

function idSchema(what: string, example: string) {
  return textSchema(example)
    .regex(ID_PATTERN, {
      error: (issue) => `${describeValue(issue.input)} is not a valid ${what}; ${ID_RULE}`,
    })
    .refine((id) => findSecret(id) === undefined, {
      error: (issue) => `${describeValue(issue.input)} is not a valid ${what}; ${SECRET_IN_ID}`,
    });
}

function nameSchema(what: string, example: string) {
  return textSchema(example).regex(TEMPLATE_NAME_PATTERN, {
    error: (issue) =>
      `${describeValue(issue.input)} is not a valid ${what}; use letters, digits and "_", starting with a letter or "_", so it can be written {name} in templates`,
  });
}

function flagSchema(key: string) {
  return z.boolean({
    error: (issue) => `expected true or false, got ${describeValue(issue.input)}; write ${key}: true`,
  });
}

const instructionsSchema = (key: string) =>
  textSchema(`${key}: "Scope out {feature}"`).min(1, {
    error: 'the instructions are empty; say what the agent should do',
  });

const stepShape = {
  // The project's id pattern, as a graph node's: a step's id names its documents (docs/<run_id>/<step>.md).
  id: idSchema('step id', 'id: scope').brand<'NodeId'>(),
  type: z
    .enum(STEP_TYPES, {
      error: (issue) => {
        const suggestion =
          typeof issue.input === 'string' ? closestMatch(issue.input, STEP_TYPES) : undefined;
        const advice =
          suggestion === undefined
            ? `write one of ${STEP_TYPES.join(', ')}`
            : `did you mean "${suggestion}"?`;
        return `unknown step type ${describeValue(issue.input)}; ${advice}`;
      },
    })
    .optional(),
  instructions: instructionsSchema('instructions').optional(),
  instruction: instructionsSchema('instruction').optional(),
  save_as: nameSchema('save_as name', 'save_as: scope').optional(),
  next_action: nameSchema('next_action tool name', 'next_action: workflow_advance').optional(),
  complete: flagSchema('complete').optional(),
  agent: idSchema('agent name', 'agent: coder').optional(),
  artefacts: flagSchema('artefacts').optional(),
  require_registration: flagSchema('require_registration').optional(),
  over: nameSchema('list name', 'over: tasks').optional(),
  contract: contractTypeSchema.optional(),
  n: z
    .number({ error: (issue) => `expected a whole number, got ${describeValue(issue.input)}; write n: 3` })
    .int({ error: (issue) => `${describeValue(issue.input)} is not a whole number; write n: 3` })
    .min(1, { error: 'n must be at least 1; write n: 3' })
    .max(MAX_RALPH_PASSES, { error: `n may be at most ${String(MAX_RALPH_PASSES)}` })
    .optional(),
};

const workflowShape = {
  name: idSchema('workflow name', 'name: my_workflow'),
  version: z
    .string({
      error: (issue) =>
        issue.input === undefined
          ? 'missing; add version: "1"'
          : `expected a string, got ${describeValue(issue.input)}; quote it, as in version: "1", so YAML keeps it as written`,
    })
    .min(1, { error: 'the version is empty; write version: "1"' }),
  description: textSchema('description: What this workflow does').optional(),
  inputs: z
    .array(nameSchema('input name', 'inputs: [feature]'), {
      error: (issue) => `expected a list, got ${describeValue(issue.input)}; write it as inputs: [feature]`,
    })
    .optional(),
  steps: z
    .array(
      z.strictObject(stepShape, {
        error: (issue) =>
          issue.code === 'invalid_type'
            ? `expected a step (a mapping starting with "- id:"), got ${describeValue(issue.input)}`
            : undefined,
      }),
      {
        error: (issue) =>
          issue.input === undefined
            ? 'missing; add steps: with a list of steps'
            : `expected a list of steps, got ${describeValue(issue.input)}; start each step with "- id:"`,
      },
    )
    .min(1, { error: 'the workflow has no steps; add at least one' })
    .max(MAX_WORKFLOW_STEPS, {
      error: `a workflow may have at most ${String(MAX_WORKFLOW_STEPS)} steps; split it`,
    }),
  budgets: budgetsSchema.optional(),
};

/** The keys allowed in each mapping of a workflow file, by dotted path (for "did you mean"). */
export const WORKFLOW_KEYS: Readonly<Record<string, AllowedKeys>> = Object.freeze({
  '': Object.keys(workflowShape),
  'steps.*': Object.keys(stepShape),
  budgets: Object.keys(budgetsSchema.shape),
});

type StepInput = z.output<z.ZodObject<typeof stepShape>>;

/** Zod schema of a workflow file: its shape, then the rules across values (every issue reported at once). */
export const workflowSchema = withRules(
  z.strictObject(workflowShape, {
    error: (issue) =>
      issue.code === 'invalid_type'
        ? `expected a mapping with name, version, inputs and steps, got ${describeValue(issue.input)}; see docs/workflows.md`
        : undefined,
  }),
  checkWorkflowRules,
).transform((workflow): WorkflowBody => ({
  name: workflow.name,
  version: workflow.version,
  description: workflow.description ?? '',
  inputs: workflow.inputs ?? [],
  steps: workflow.steps.map(toStep),
  budgets: workflow.budgets ?? {},
}));

function toStep(step: StepInput): WorkflowStep {
  // The rules guarantee exactly one instructions key, a parseable template and the type's own key.
  const instructions = step.instructions ?? step.instruction ?? '';
  const common = {
    id: step.id,
    instructions,
    template: templateOf(instructions),
    nextAction: step.next_action ?? DEFAULT_NEXT_ACTION,
    complete: step.complete ?? false,
    artefacts: step.artefacts ?? false,
    requireRegistration: step.require_registration ?? false,
    ...(step.save_as === undefined ? {} : { saveAs: step.save_as }),
    ...(step.agent === undefined ? {} : { agent: step.agent }),
    ...(step.contract === undefined ? {} : { contract: step.contract }),
  };
  switch (step.type ?? 'action') {
    case 'action':
      return { ...common, type: 'action' };
    case 'loop':
      return { ...common, type: 'loop', over: step.over ?? '' };
    case 'ralph':
      return { ...common, type: 'ralph', n: step.n ?? 1 };
  }
}

function templateOf(text: string): WorkflowTemplate {
  const parsed = parseWorkflowTemplate(text);
  if (!parsed.ok) throw new Error(`unreachable: the rules reported ${parsed.problems[0]?.message ?? ''}`);
  return parsed.template;
}
