import type { TemplateReference, WorkflowTemplate, WorkflowTemplatePart } from './workflow-template.js';

/** A value a template can show: text, a number, a flag, a list, or a mapping with fields. */
export type TemplateValue =
  string | number | boolean | readonly TemplateValue[] | { readonly [field: string]: TemplateValue };

/** The values a template is rendered with, by name (inputs, `save_as` outputs, built-ins). */
export type TemplateValues = Readonly<Record<string, TemplateValue>>;

/** Why a template could not be rendered. */
export type RenderProblemCode = 'missing_value' | 'not_a_list';

/** One reference that could not be rendered. */
export interface RenderProblem {
  readonly code: RenderProblemCode;
  /** The tag as written: `{decomposition[3]}`. */
  readonly token: string;
  readonly message: string;
}

/** The whole rendered text, or every reference that has no value; never a half-rendered text. */
export type RenderResult =
  | { readonly ok: true; readonly text: string }
  | {
      readonly ok: false;
      readonly code: RenderProblemCode;
      readonly problems: readonly RenderProblem[];
      readonly message: string;
    };

type Lookup =
  | { readonly ok: true; readonly value: TemplateValue }
  | { readonly ok: false; readonly problem: RenderProblem };

/**
 * Renders a parsed template with `values`, all or nothing: a reference without a value (or a foreach over
 * something that is not a list) makes the result an error naming every such reference.
 */
export function renderWorkflowTemplate(template: WorkflowTemplate, values: TemplateValues): RenderResult {
  const problems: RenderProblem[] = [];
  const text = renderParts(template.parts, new Map(Object.entries(values)), problems);
  if (problems.length === 0) return { ok: true, text };
  const unique = [...new Map(problems.map((problem) => [problem.message, problem])).values()];
  const first = unique[0]?.code ?? 'missing_value';
  return { ok: false, code: first, problems: unique, message: unique.map((p) => p.message).join('; ') };
}

/**
 * The items of a value used as a list (by `[i]`, `foreach` or a loop's `over`): a list as it is, text as its
 * non-empty lines with a leading list marker (`- `, `* `, `1. `) removed; undefined for anything else.
 */
export function asTemplateList(value: TemplateValue): readonly TemplateValue[] | undefined {
  if (Array.isArray(value)) return value as readonly TemplateValue[];
  if (typeof value !== 'string') return undefined;
  return value
    .split(/\r?\n/)
    .map((line) => line.trim().replace(/^(?:[-*+]|\d{1,9}[.)])\s+/, ''))
    .filter((line) => line !== '');
}

/**
 * How a value reads in rendered text: text as is, a list's items one per line, a mapping as its `text`
 * field when it has one (a loop's `{task}`), otherwise as indented JSON.
 */
export function templateText(value: TemplateValue): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return (value as readonly TemplateValue[]).map(templateText).join('\n');
  const mapping = value as { readonly [field: string]: TemplateValue };
  const own = Object.hasOwn(mapping, 'text') ? mapping.text : undefined;
  return typeof own === 'string' ? own : JSON.stringify(mapping, null, 2);
}

function renderParts(
  parts: readonly WorkflowTemplatePart[],
  scope: ReadonlyMap<string, TemplateValue>,
  problems: RenderProblem[],
): string {
  let text = '';
  for (const part of parts) {
    switch (part.kind) {
      case 'text':
        text += part.text;
        break;
      case 'value': {
        const found = lookUp(part.reference, scope);
        if (found.ok) text += templateText(found.value);
        else problems.push(found.problem);
        break;
      }
      case 'foreach': {
        const found = lookUp(part.list, scope);
        if (!found.ok) {
          problems.push(found.problem);
          break;
        }
        const items = asTemplateList(found.value);
        if (items === undefined) {
          problems.push(notAList(part.list, part.list.path, found.value));
          break;
        }
        for (const item of items) {
          text += renderParts(part.body, new Map([...scope, [part.item, item]]), problems);
        }
        break;
      }
    }
  }
  return text;
}

function lookUp(reference: TemplateReference, scope: ReadonlyMap<string, TemplateValue>): Lookup {
  let value: TemplateValue | undefined = scope.get(reference.root);
  if (value === undefined)
    return missing(reference, `no input, output or built-in named "${reference.root}" is set`);
  let reached = reference.root;
  for (const accessor of reference.accessors) {
    if (accessor.kind === 'index') {
      const items = asTemplateList(value);
      if (items === undefined) return { ok: false, problem: notAList(reference, reached, value) };
      const item: TemplateValue | undefined = items[accessor.index];
      if (item === undefined) {
        const count = `${String(items.length)} item${items.length === 1 ? '' : 's'}`;
        return missing(reference, `${reached} has ${count}, so [${String(accessor.index)}] is past its end`);
      }
      value = item;
      reached += `[${String(accessor.index)}]`;
    } else {
      const field = fieldOf(value, accessor.name);
      if (field === undefined) return missing(reference, `${reached} has no field "${accessor.name}"`);
      value = field;
      reached += `.${accessor.name}`;
    }
  }
  return { ok: true, value };
}

function fieldOf(value: TemplateValue, name: string): TemplateValue | undefined {
  if (typeof value !== 'object' || Array.isArray(value)) return undefined;
  const mapping = value as { readonly [field: string]: TemplateValue };
  return Object.hasOwn(mapping, name) ? mapping[name] : undefined;
}

function missing(reference: TemplateReference, why: string): Lookup {
  const message = `${tagOf(reference)} has no value: ${why}`;
  return { ok: false, problem: { code: 'missing_value', token: reference.raw, message } };
}

function notAList(reference: TemplateReference, reached: string, value: TemplateValue): RenderProblem {
  const kind =
    typeof value === 'number' ? 'a number' : typeof value === 'boolean' ? 'true or false' : 'a mapping';
  return {
    code: 'not_a_list',
    token: reference.raw,
    message: `${tagOf(reference)} needs ${reached} to be a list or text, but it is ${kind}`,
  };
}

function tagOf(reference: TemplateReference): string {
  return reference.raw.startsWith('{foreach') ? `{${reference.path}} in ${reference.raw}` : reference.raw;
}
