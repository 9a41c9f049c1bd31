import { WORKFLOW_STEP_TYPES } from './workflow-definition.js';
import type { WorkflowStepType } from './workflow-definition.js';

/** A step of a workflow as read, whatever its shape: only fields of the right type are used by the rules. */
export interface StepView {
  readonly index: number;
  readonly id: string | undefined;
  /** The step's type; `action` when not written, undefined when it is not one of the three. */
  readonly type: WorkflowStepType | undefined;
  readonly fields: Readonly<Record<string, unknown>>;
  /** `instructions` or `instruction`, whichever is written (first) as text. */
  readonly instructionsKey: 'instructions' | 'instruction' | undefined;
  readonly saveAs: string | undefined;
}

/** The mappings of a workflow's `steps` list as {@link StepView}s (other entries are the schema's to report). */
export function viewSteps(steps: unknown): StepView[] {
  if (!Array.isArray(steps)) return [];
  return steps.flatMap((raw: unknown, index): StepView[] => {
    const fields = asRecord(raw);
    if (fields === undefined) return [];
    const type =
      fields.type === undefined
        ? 'action'
        : WORKFLOW_STEP_TYPES.find((candidate) => candidate === fields.type);
    const id = typeof fields.id === 'string' ? fields.id : undefined;
    const instructionsKey =
      typeof fields.instructions === 'string'
        ? 'instructions'
        : typeof fields.instruction === 'string'
          ? 'instruction'
          : undefined;
    const saveAs = typeof fields.save_as === 'string' ? fields.save_as : undefined;
    return [{ index, id, type, fields, instructionsKey, saveAs }];
  });
}

/** How a message names a step: `step "scope"`, or `steps[2]` when it has no id. */
export function stepLabel(step: StepView): string {
  return step.id === undefined ? `steps[${String(step.index)}]` : `step "${step.id}"`;
}

/** `value` when it is a mapping. */
export function asRecord(value: unknown): Readonly<Record<string, unknown>> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** The strings of `value` when it is a list. */
export function stringsOf(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}
