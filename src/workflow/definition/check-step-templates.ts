import { closestMatch, type YamlRuleIssue } from '../../config/index.js';
import { BUILTIN_VARIABLES, builtinsForStepType, isBuiltinVariable } from './builtin-variables.js';
import { stepLabel, type StepView } from './step-view.js';
import { parseWorkflowTemplate, type ScopedReference } from './workflow-template.js';

/** One broken workflow rule, at a path into the workflow file (zod issue style). */
export type WorkflowRuleIssue = YamlRuleIssue;

/** Where a `save_as` name is provided: by the step at `index`. */
export type SavedBy = ReadonlyMap<string, StepView>;

/**
 * The template problems of one step's instructions: syntax, and every variable that no input, earlier
 * `save_as`, foreach variable or built-in valid for the step's type can provide; each points at its tag.
 */
export function checkStepTemplates(
  step: StepView,
  inputs: readonly string[],
  savedBy: SavedBy,
): WorkflowRuleIssue[] {
  const key = step.instructionsKey;
  if (key === undefined) return [];
  const text = step.fields[key] as string;
  const path = ['steps', step.index, key];
  const parsed = parseWorkflowTemplate(text);
  if (!parsed.ok) {
    return parsed.problems.map((problem) => ({
      path,
      message: problem.message,
      params: { token: problem.token, occurrence: countBefore(text, problem.token, problem.offset) },
    }));
  }
  const earlier = [...savedBy].filter(([, by]) => by.index < step.index).map(([name]) => name);
  // A step whose type is unreadable (reported by the schema) may use any built-in, so nothing is reported twice.
  const builtins = step.type === undefined ? BUILTIN_VARIABLES : builtinsForStepType(step.type);
  const known = new Set([...inputs, ...earlier, ...builtins]);
  const issues: WorkflowRuleIssue[] = [];
  const reported = new Set<string>();
  for (const scoped of parsed.template.references) {
    const { reference } = scoped;
    if (scoped.scope.includes(reference.root) || known.has(reference.root)) continue;
    if (reported.has(reference.root)) continue;
    reported.add(reference.root);
    issues.push({
      path,
      message: explain(scoped, step, known, savedBy),
      params: { token: reference.raw, occurrence: countBefore(text, reference.raw, reference.offset) },
    });
  }
  return issues;
}

function explain(
  scoped: ScopedReference,
  step: StepView,
  known: ReadonlySet<string>,
  savedBy: SavedBy,
): string {
  const name = scoped.reference.root;
  const tag = `{${name}}`;
  if (isBuiltinVariable(name)) {
    const where = name === 'task' ? 'loop steps (type: loop)' : 'ralph steps (type: ralph)';
    return `${tag} is only set in ${where}, and ${stepLabel(step)} is of type ${step.type ?? 'action'}; change the step's type or remove ${tag}`;
  }
  const saver = savedBy.get(name);
  if (saver !== undefined) {
    const who = saver.index === step.index ? 'by this step itself' : `by a later step, ${stepLabel(saver)}`;
    return `${tag} is saved (save_as: ${name}) ${who}, so it has no value yet here; use it in a later step`;
  }
  const names = [...known, ...scoped.scope].map((known) => `{${known}}`).join(', ');
  const suggestion = closestMatch(name, [...known, ...scoped.scope]);
  const fix = `declare it under inputs:, save an earlier step's output with save_as: ${name}, or write {${tag}} for literal braces`;
  const advice = suggestion === undefined ? fix : `did you mean {${suggestion}}? Otherwise ${fix}`;
  return `unknown template variable ${tag} (known here: ${names}); ${advice}`;
}

/** How many times `token` occurs in `text` before `offset` (which occurrence a tag is). */
function countBefore(text: string, token: string, offset: number): number {
  let count = 0;
  for (
    let index = text.indexOf(token);
    index !== -1 && index < offset;
    index = text.indexOf(token, index + 1)
  )
    count += 1;
  return count;
}
