import type { TemplateValue } from './render-workflow-template.js';
import type { WorkflowStepType } from './workflow-definition.js';

/** The names the engine fills in itself, never declared by a definition. */
export const BUILTIN_VARIABLES = ['run_id', 'step', 'iteration', 'n', 'task', 'artefacts'] as const;

/** One of {@link BUILTIN_VARIABLES}. */
export type BuiltinVariable = (typeof BUILTIN_VARIABLES)[number];

const FOR_EVERY_STEP: readonly BuiltinVariable[] = ['run_id', 'step', 'artefacts'];

/** The built-ins a step of `type` may use: `{iteration}`/`{n}` only in ralph, `{task}` only in loop. */
export function builtinsForStepType(type: WorkflowStepType): readonly BuiltinVariable[] {
  switch (type) {
    case 'action':
      return FOR_EVERY_STEP;
    case 'loop':
      return [...FOR_EVERY_STEP, 'task'];
    case 'ralph':
      return [...FOR_EVERY_STEP, 'iteration', 'n'];
  }
}

/** Whether `name` is one of {@link BUILTIN_VARIABLES}. */
export function isBuiltinVariable(name: string): name is BuiltinVariable {
  return (BUILTIN_VARIABLES as readonly string[]).includes(name);
}

/** What the engine knows about the current pass of a step, to fill in the built-ins. */
export type BuiltinContext =
  | {
      readonly type: 'action';
      readonly runId: string;
      readonly step: string;
      readonly artefacts: readonly string[];
    }
  | {
      readonly type: 'loop';
      readonly runId: string;
      readonly step: string;
      readonly artefacts: readonly string[];
      /** The current item of the step's `over` list. */
      readonly task: TemplateValue;
      /** 1-based position of the item. */
      readonly index: number;
      readonly total: number;
    }
  | {
      readonly type: 'ralph';
      readonly runId: string;
      readonly step: string;
      readonly artefacts: readonly string[];
      /** 1-based iteration. */
      readonly iteration: number;
      readonly n: number;
    };

/** The built-in values of one pass of a step, ready to merge with the inputs and outputs. */
export function builtinValues(context: BuiltinContext): Readonly<Record<string, TemplateValue>> {
  const common = { run_id: context.runId, step: context.step, artefacts: [...context.artefacts] };
  switch (context.type) {
    case 'action':
      return common;
    case 'loop':
      return { ...common, task: loopTaskValue(context.task, context.index, context.total) };
    case 'ralph':
      return { ...common, iteration: context.iteration, n: context.n };
  }
}

/**
 * The value of `{task}` for one item of a loop: the item's fields (when it is a mapping) plus `index`
 * (1-based) and `total`; `{task}` alone reads as the item's text.
 */
export function loopTaskValue(item: TemplateValue, index: number, total: number): TemplateValue {
  const fields =
    typeof item === 'object' && !Array.isArray(item) ? (item as Record<string, TemplateValue>) : {};
  const text = typeof item === 'object' && !Array.isArray(item) ? fields.text : item;
  return {
    ...fields,
    index,
    total,
    text: typeof text === 'string' ? text : templateTextOf(item),
  };
}

function templateTextOf(item: TemplateValue): string {
  return typeof item === 'string' ? item : JSON.stringify(item);
}
