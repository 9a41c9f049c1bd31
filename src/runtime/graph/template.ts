import { ID_PATTERN, MAX_ID_LENGTH } from '../../project/index.js';
/** A variable of a template: `{name}` (an input or `run_id`) or `{node_id.output}` (a node's document). */
export type TemplateVariable =
  | {
      readonly kind: 'name';
      readonly name: string;
      /** The variable as written, braces included: `{goal}`. */
      readonly raw: string;
      /** Index of its `{` in the template text. */
      readonly offset: number;
    }
  | {
      readonly kind: 'node_output';
      readonly nodeId: string;
      readonly raw: string;
      readonly offset: number;
    };

/** A run of literal text (escapes already applied) or one variable. */
export type TemplatePart =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'variable'; readonly variable: TemplateVariable };

/** A template split into literal text and variables. */
export interface ParsedTemplate {
  readonly parts: readonly TemplatePart[];
  /** Every variable occurrence, in the order written. */
  readonly variables: readonly TemplateVariable[];
}

/** What may stand between the braces of `{name}`: a name starting with a letter or `_`. */
export const TEMPLATE_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;

// A node id (the layout's id pattern, anchors dropped) followed by `.output`.
const NODE_OUTPUT_PATTERN = new RegExp(`^(${ID_PATTERN.source.slice(1, -1)})\\.output$`);
// The longest variable body, `<longest node id>.output`; scanning stops there, keeping parsing linear.
const MAX_VARIABLE_LENGTH = MAX_ID_LENGTH + '.output'.length;
const VARIABLE_CHARACTER = /[A-Za-z0-9._-]/;

/**
 * Splits a template into literal text and variables: `{name}` and `{node_id.output}` (no spaces inside the
 * braces) are variables, `{{` and `}}` write one literal brace, and any other brace is literal text.
 */
export function parseTemplate(text: string): ParsedTemplate {
  const parts: TemplatePart[] = [];
  const variables: TemplateVariable[] = [];
  let literal = '';
  let index = 0;
  while (index < text.length) {
    const character = text.charAt(index);
    const next = text.charAt(index + 1);
    if ((character === '{' && next === '{') || (character === '}' && next === '}')) {
      literal += character;
      index += 2;
      continue;
    }
    const variable = character === '{' ? readVariable(text, index) : undefined;
    if (variable === undefined) {
      literal += character;
      index += 1;
      continue;
    }
    if (literal !== '') parts.push({ kind: 'text', text: literal });
    literal = '';
    parts.push({ kind: 'variable', variable });
    variables.push(variable);
    index += variable.raw.length;
  }
  if (literal !== '') parts.push({ kind: 'text', text: literal });
  return { parts, variables };
}

/**
 * Renders a parsed template in one pass: each variable becomes `valueOf(variable)` as is, so a value that
 * itself contains `{x}` is never expanded again.
 */
export function renderTemplate(
  template: ParsedTemplate,
  valueOf: (variable: TemplateVariable) => string,
): string {
  return template.parts.map((part) => (part.kind === 'text' ? part.text : valueOf(part.variable))).join('');
}

/** The variable whose `{` is at `open`, or undefined when the braces there hold anything else. */
function readVariable(text: string, open: number): TemplateVariable | undefined {
  let close = open + 1;
  while (
    close < text.length &&
    close - open <= MAX_VARIABLE_LENGTH &&
    VARIABLE_CHARACTER.test(text.charAt(close))
  ) {
    close += 1;
  }
  if (text.charAt(close) !== '}') return undefined;
  const body = text.slice(open + 1, close);
  const raw = text.slice(open, close + 1);
  if (TEMPLATE_NAME_PATTERN.test(body)) return { kind: 'name', name: body, raw, offset: open };
  const nodeId = NODE_OUTPUT_PATTERN.exec(body)?.[1];
  return nodeId === undefined ? undefined : { kind: 'node_output', nodeId, raw, offset: open };
}
