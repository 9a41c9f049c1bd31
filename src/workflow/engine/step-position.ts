import { describeValue } from '../../config/index.js';
import { isNodeId, runDocsDir } from '../../project/index.js';
import type { NodeId, RunId } from '../../project/index.js';
import { asTemplateList, builtinValues } from '../definition/index.js';
import type { TemplateValue, TemplateValues, WorkflowDefinition, WorkflowStep } from '../definition/index.js';
import type { WorkflowState, WorkflowTask } from '../state/index.js';
import { WorkflowError } from './workflow-error.js';

/** Where a run is: a step and, for loop and ralph steps, its pass; the loop lists fixed so far. */
export interface StepPosition {
  readonly step_index: number;
  readonly step: NodeId;
  readonly stepType: WorkflowStep['type'];
  readonly task?: WorkflowTask;
  readonly ralphIteration?: number;
  readonly tasks: WorkflowState['tasks'];
}

/** What the values of a pass are made of. */
export type KnownValues = Pick<WorkflowState, 'inputs' | 'outputs' | 'tasks'>;

/** A state's JSON (inputs, tasks) as template values: `null` reads as empty text, the rest as it is. */
export function toTemplateValue(value: unknown): TemplateValue {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return value.map(toTemplateValue);
  if (typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, toTemplateValue(item)]));
  }
  return value as TemplateValue;
}

/** The inputs and the outputs saved so far, by name (the definition's rules keep the names distinct). */
function namedValues(known: KnownValues): Record<string, TemplateValue> {
  return { ...(toTemplateValue(known.inputs) as Record<string, TemplateValue>), ...known.outputs };
}

/**
 * The first pass of step `index`, or of the first step after it that has a pass (a loop over an empty list
 * has none); `end` past the last step. Throws `step_blocked` when a loop's `over` is not a list.
 */
export function enterStep(
  definition: WorkflowDefinition,
  index: number,
  known: KnownValues,
): StepPosition | 'end' {
  for (let at = index; at < definition.steps.length; at += 1) {
    const step = definition.steps[at];
    if (step === undefined) break;
    const base = { step_index: at, step: step.id, stepType: step.type, tasks: known.tasks };
    switch (step.type) {
      case 'action':
        return base;
      case 'ralph':
        return { ...base, ralphIteration: 1 };
      case 'loop': {
        const source = namedValues(known)[step.over];
        const list = source === undefined ? undefined : asTemplateList(source);
        if (list === undefined) {
          throw new WorkflowError(
            'step_blocked',
            `step ${step.id} loops over ${step.over}, which ${source === undefined ? 'has no value' : `is ${describeValue(source)}, not a list`}; nothing was changed: submit an output that lists the items, one per line`,
          );
        }
        // A template value is JSON (text, numbers, flags, lists, mappings); only its readonly-ness differs.
        const items = list as unknown as WorkflowState['tasks'][string];
        const first = items[0];
        // A loop over no items has no pass: the workflow goes on with the next step.
        if (first === undefined) continue;
        return {
          ...base,
          task: { index: 1, total: items.length, value: first },
          tasks: { ...known.tasks, [step.id]: items },
        };
      }
    }
  }
  return 'end';
}

/** The pass after the current one (the next task, iteration or step), or `end` when the workflow completes. */
export function nextPosition(
  definition: WorkflowDefinition,
  state: WorkflowState,
  known: KnownValues,
): StepPosition | 'end' {
  const step = currentStep(definition, state);
  const here = { step_index: state.step_index, step: step.id, stepType: step.type, tasks: known.tasks };
  if (step.type === 'loop' && state.task !== undefined && state.task.index < state.task.total) {
    const value = known.tasks[step.id]?.[state.task.index];
    if (value !== undefined) {
      return { ...here, task: { index: state.task.index + 1, total: state.task.total, value } };
    }
  }
  if (step.type === 'ralph' && (state.ralphIteration ?? 1) < step.n) {
    return { ...here, ralphIteration: (state.ralphIteration ?? 1) + 1 };
  }
  if (step.complete) return 'end';
  return enterStep(definition, state.step_index + 1, known);
}

/** The pinned definition's step the state is at; a state that names another step is unreadable. */
export function currentStep(definition: WorkflowDefinition, state: WorkflowState): WorkflowStep {
  const step = definition.steps[state.step_index];
  if (step?.id !== state.step) {
    throw new WorkflowError(
      'invalid_request',
      `state.json of run ${state.run_id} names step ${state.step} at position ${String(state.step_index + 1)}, which the pinned definition does not have; start a new run`,
    );
  }
  return step;
}

/** The 1-based pass of the position (a loop's task, a ralph iteration), or undefined for an action step. */
export function passOf(position: Pick<StepPosition, 'task' | 'ralphIteration'>): number | undefined {
  return position.task?.index ?? position.ralphIteration;
}

/** `{ pass }` when there is one (exactOptionalPropertyTypes: never `pass: undefined`). */
export function passField(pass: number | undefined): { readonly pass?: number } {
  return pass === undefined ? {} : { pass };
}

/** `docs/<run_id>/<step>[-<pass>].md`: where a pass's submitted output is written. */
export function stepDocumentPath(runId: RunId, step: NodeId, pass: number | undefined): string {
  return `${runDocsDir(runId)}/${step}${pass === undefined ? '' : `-${String(pass)}`}.md`;
}

/** Every value a pass's instructions may use: inputs, earlier `save_as` outputs and the step's built-ins. */
export function passValues(
  runId: RunId,
  step: WorkflowStep,
  position: Pick<StepPosition, 'task' | 'ralphIteration'>,
  known: KnownValues & Pick<WorkflowState, 'artefacts'>,
): TemplateValues {
  const common = { runId, step: step.id, artefacts: known.artefacts };
  const builtins =
    step.type === 'loop'
      ? builtinValues({
          ...common,
          type: 'loop',
          task: toTemplateValue(position.task?.value),
          index: position.task?.index ?? 1,
          total: position.task?.total ?? 1,
        })
      : step.type === 'ralph'
        ? builtinValues({ ...common, type: 'ralph', iteration: position.ralphIteration ?? 1, n: step.n })
        : builtinValues({ ...common, type: 'action' });
  return { ...namedValues(known), ...builtins };
}

/**
 * The node id a pass's document is ingested and recorded under: `<step>-<pass>` for a loop or ralph pass (so
 * each pass keeps its own manifest), the step's id otherwise, or when `<step>-<pass>` would be too long.
 */
export function passNodeId(step: NodeId, pass: number | undefined): NodeId {
  if (pass === undefined) return step;
  const candidate = `${step}-${String(pass)}`;
  return isNodeId(candidate) ? candidate : step;
}
