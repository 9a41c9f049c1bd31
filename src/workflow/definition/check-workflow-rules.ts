import { closestMatch } from '../../config/index.js';
import { isBuiltinVariable } from './builtin-variables.js';
import { checkStepTemplates, type WorkflowRuleIssue } from './check-step-templates.js';
import { asRecord, stepLabel, stringsOf, viewSteps, type StepView } from './step-view.js';

// Which step type each type-specific key belongs to; a step of another type must not have it.
const KEY_OWNER = { over: 'loop', n: 'ralph' } as const;

/**
 * The rules of a workflow that concern more than one value (the instructions key, keys by step type,
 * duplicate ids and `save_as` names, what `over` names, `complete`, template variables), checked on the
 * workflow as read so they are reported together with the schema's issues.
 */
export function checkWorkflowRules(value: unknown): WorkflowRuleIssue[] {
  const workflow = asRecord(value);
  if (workflow === undefined) return [];
  const steps = viewSteps(workflow.steps);
  const inputs = stringsOf(workflow.inputs);
  const savedBy = new Map<string, StepView>();
  for (const step of steps) {
    if (step.saveAs !== undefined && !savedBy.has(step.saveAs)) savedBy.set(step.saveAs, step);
  }
  return [
    ...checkInputs(workflow.inputs),
    ...steps.flatMap(checkInstructionsKey),
    ...steps.flatMap(checkTypeKeys),
    ...checkDuplicateIds(steps),
    ...checkSaveAs(steps, inputs),
    ...steps.flatMap((step) => checkOver(step, inputs, savedBy)),
    ...checkComplete(steps),
    ...steps.flatMap(checkRegistration),
    ...steps.flatMap((step) => checkStepTemplates(step, inputs, savedBy)),
  ];
}

function checkInputs(raw: unknown): WorkflowRuleIssue[] {
  if (!Array.isArray(raw)) return [];
  const seen = new Set<string>();
  const issues: WorkflowRuleIssue[] = [];
  for (const [index, name] of raw.entries()) {
    if (typeof name !== 'string') continue;
    if (isBuiltinVariable(name)) {
      issues.push({
        path: ['inputs', index],
        message: `{${name}} is a built-in set by the engine; name the input something else`,
      });
    } else if (seen.has(name)) {
      issues.push({ path: ['inputs', index], message: `input "${name}" is listed twice; keep one` });
    }
    seen.add(name);
  }
  return issues;
}

function checkInstructionsKey(step: StepView): WorkflowRuleIssue[] {
  const { instructions, instruction } = step.fields;
  if (instructions !== undefined && instruction !== undefined) {
    return [
      {
        path: ['steps', step.index],
        message: `${stepLabel(step)} has both instructions: and instruction:; keep one (instruction is an alias of instructions)`,
        params: { key: 'instruction' },
      },
    ];
  }
  if (instructions === undefined && instruction === undefined) {
    return [
      {
        path: ['steps', step.index],
        message: `${stepLabel(step)} has no instructions; add instructions: | with what the agent should do`,
      },
    ];
  }
  return [];
}

function checkTypeKeys(step: StepView): WorkflowRuleIssue[] {
  if (step.type === undefined) return [];
  const issues: WorkflowRuleIssue[] = [];
  for (const [key, owner] of Object.entries(KEY_OWNER)) {
    const written = step.fields[key] !== undefined;
    if (written && step.type !== owner) {
      issues.push({
        path: ['steps', step.index],
        message: `${key}: only applies to ${owner} steps, and ${stepLabel(step)} is of type ${step.type}; remove ${key}: or write type: ${owner}`,
        params: { key },
      });
    } else if (!written && step.type === owner) {
      const example = key === 'over' ? 'over: tasks (an input or an earlier save_as holding a list)' : 'n: 3';
      issues.push({
        path: ['steps', step.index],
        message: `${stepLabel(step)} is a ${owner} step without ${key}:; add ${example}`,
      });
    }
  }
  return issues;
}

function checkDuplicateIds(steps: readonly StepView[]): WorkflowRuleIssue[] {
  const first = new Map<string, StepView>();
  const issues: WorkflowRuleIssue[] = [];
  for (const step of steps) {
    if (step.id === undefined) continue;
    const earlier = first.get(step.id);
    if (earlier === undefined) {
      first.set(step.id, step);
      continue;
    }
    issues.push({
      path: ['steps', step.index, 'id'],
      message: `step id "${step.id}" is already used by steps[${String(earlier.index)}]; give each step its own id`,
    });
  }
  return issues;
}

function checkSaveAs(steps: readonly StepView[], inputs: readonly string[]): WorkflowRuleIssue[] {
  const first = new Map<string, StepView>();
  const issues: WorkflowRuleIssue[] = [];
  for (const step of steps) {
    const name = step.saveAs;
    if (name === undefined) continue;
    const path = ['steps', step.index, 'save_as'];
    const earlier = first.get(name);
    if (isBuiltinVariable(name)) {
      issues.push({
        path,
        message: `{${name}} is a built-in set by the engine; save the output under another name`,
      });
    } else if (inputs.includes(name)) {
      issues.push({
        path,
        message: `"${name}" is also an input, so {${name}} would be ambiguous; save the output under another name`,
      });
    } else if (earlier !== undefined) {
      issues.push({
        path,
        message: `save_as: ${name} is already used by ${stepLabel(earlier)}; give each output its own name`,
      });
    }
    if (earlier === undefined) first.set(name, step);
  }
  return issues;
}

function checkOver(
  step: StepView,
  inputs: readonly string[],
  savedBy: ReadonlyMap<string, StepView>,
): WorkflowRuleIssue[] {
  const over = step.fields.over;
  if (step.type !== 'loop' || typeof over !== 'string') return [];
  const saver = savedBy.get(over);
  if (inputs.includes(over) || (saver !== undefined && saver.index < step.index)) return [];
  const path = ['steps', step.index, 'over'];
  if (saver !== undefined) {
    return [
      {
        path,
        message: `over: ${over} is saved by ${saver.index === step.index ? 'this step itself' : `a later step, ${stepLabel(saver)}`}, so it has no value when ${stepLabel(step)} starts; loop over an input or an earlier save_as`,
      },
    ];
  }
  const candidates = [
    ...inputs,
    ...[...savedBy].filter(([, by]) => by.index < step.index).map(([name]) => name),
  ];
  const suggestion = closestMatch(over, candidates);
  const listed = candidates.length === 0 ? 'there are none yet' : `known here: ${candidates.join(', ')}`;
  const advice = suggestion === undefined ? '' : `did you mean "${suggestion}"? `;
  return [
    {
      path,
      message: `over: ${over} names no input and no earlier save_as (${listed}); ${advice}declare it under inputs: or save an earlier step's output with save_as: ${over}`,
    },
  ];
}

function checkComplete(steps: readonly StepView[]): WorkflowRuleIssue[] {
  const completing = steps.filter((step) => step.fields.complete === true);
  const [first] = completing;
  if (first === undefined) return [];
  const issues: WorkflowRuleIssue[] = completing.slice(1).map((step) => ({
    path: ['steps', step.index, 'complete'],
    message: `complete: true is already on ${stepLabel(first)}; only one step may complete the workflow`,
  }));
  const after = steps.filter((step) => step.index > first.index);
  const [next] = after;
  if (completing.length === 1 && next !== undefined) {
    issues.push({
      path: ['steps', first.index, 'complete'],
      message: `${stepLabel(first)} completes the workflow, so the ${String(after.length)} step(s) after it (${after.map(stepLabel).join(', ')}) would never run; move complete: true to the last step or remove those steps`,
    });
  }
  return issues;
}

function checkRegistration(step: StepView): WorkflowRuleIssue[] {
  if (step.fields.require_registration !== true || step.fields.artefacts === true) return [];
  return [
    {
      path: ['steps', step.index, 'require_registration'],
      message: `${stepLabel(step)} requires registration but does not tell the agent to register; add artefacts: true`,
    },
  ];
}
