/** One step from a value to a part of it: `[0]` (an item of a list) or `.field` (a field of a mapping). */
export type TemplateAccessor =
  { readonly kind: 'index'; readonly index: number } | { readonly kind: 'field'; readonly name: string };

/** A value named in a template: `{name}`, `{name[0]}`, `{name.field}`, or a chain such as `{a.b[1]}`. */
export interface TemplateReference {
  /** The first name: an input, a `save_as`, a built-in or a `foreach` variable. */
  readonly root: string;
  readonly accessors: readonly TemplateAccessor[];
  /** The reference as written, without braces: `decomposition[0]`. */
  readonly path: string;
  /** The tag as written, braces included: `{decomposition[0]}`, or the whole `{foreach ...}` tag. */
  readonly raw: string;
  /** Index of the tag's `{` in the template text. */
  readonly offset: number;
}

/** A run of literal text (escapes applied), one value, or a `{foreach item in list}...{/foreach}` block. */
export type WorkflowTemplatePart =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'value'; readonly reference: TemplateReference }
  | {
      readonly kind: 'foreach';
      readonly item: string;
      readonly list: TemplateReference;
      readonly body: readonly WorkflowTemplatePart[];
    };

/** A reference together with the `foreach` variables in scope where it is written (innermost last). */
export interface ScopedReference {
  readonly reference: TemplateReference;
  readonly scope: readonly string[];
}

/** A workflow template parsed once into parts, ready to render many times. */
export interface WorkflowTemplate {
  readonly parts: readonly WorkflowTemplatePart[];
  /** Every reference (values and foreach lists), in the order written, with its scope. */
  readonly references: readonly ScopedReference[];
}

/** Why a template cannot be parsed. */
export type TemplateSyntaxCode = 'bad_foreach' | 'unclosed_foreach' | 'unopened_foreach_end';

/** A syntax problem of a template, with the tag it is about. */
export interface TemplateSyntaxProblem {
  readonly code: TemplateSyntaxCode;
  readonly message: string;
  /** The tag as written, for pointing at it. */
  readonly token: string;
  readonly offset: number;
}

/** A parsed template, or every syntax problem found in it. */
export type TemplateParseResult =
  | { readonly ok: true; readonly template: WorkflowTemplate }
  | { readonly ok: false; readonly problems: readonly TemplateSyntaxProblem[] };

/** What a template variable's name (an input, a `save_as`, a field) may be: `{name}` must be writable. */
export const TEMPLATE_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;

const NAME = '[A-Za-z_][A-Za-z0-9_]*';
const REFERENCE = `${NAME}(?:\\[\\d{1,6}\\]|\\.${NAME})*`;
// Sticky, so each is tried exactly at the `{` being read; a tag never spans a line.
const VALUE_TAG = new RegExp(`\\{(${REFERENCE})\\}`, 'y');
const FOREACH_TAG = new RegExp(`\\{foreach[ \\t]+(${NAME})[ \\t]+in[ \\t]+(${REFERENCE})[ \\t]*\\}`, 'y');
const FOREACH_START = /\{foreach(?=[\s}])/y;
const FOREACH_END = '{/foreach}';
const ACCESSOR = new RegExp(`\\[(\\d+)\\]|\\.(${NAME})`, 'g');

interface OpenBlock {
  readonly item: string;
  readonly list: TemplateReference;
  readonly parts: WorkflowTemplatePart[];
  readonly raw: string;
  readonly offset: number;
  literal: string;
}

/**
 * Parses a workflow template: `{name}`, `{name[0]}`, `{name.field}` are values, `{foreach x in xs}` ...
 * `{/foreach}` repeats its body (blocks nest), `{{` and `}}` write one literal brace, and any other brace
 * is literal text; a foreach tag alone on its line takes its line with it.
 */
export function parseWorkflowTemplate(text: string): TemplateParseResult {
  const problems: TemplateSyntaxProblem[] = [];
  const references: ScopedReference[] = [];
  const root: OpenBlock = { item: '', list: emptyReference, parts: [], raw: '', offset: 0, literal: '' };
  const stack: OpenBlock[] = [root];
  const top = (): OpenBlock => stack[stack.length - 1] ?? root;
  const flush = (block: OpenBlock): void => {
    if (block.literal !== '') block.parts.push({ kind: 'text', text: block.literal });
    block.literal = '';
  };
  const scope = (): string[] => stack.slice(1).map((block) => block.item);
  let index = 0;
  while (index < text.length) {
    const character = text.charAt(index);
    const next = text.charAt(index + 1);
    if ((character === '{' && next === '{') || (character === '}' && next === '}')) {
      top().literal += character;
      index += 2;
      continue;
    }
    if (character !== '{') {
      top().literal += character;
      index += 1;
      continue;
    }
    const value = matchAt(VALUE_TAG, text, index);
    if (value !== undefined) {
      const reference = toReference(value[1] ?? '', value[0], index);
      flush(top());
      top().parts.push({ kind: 'value', reference });
      references.push({ reference, scope: scope() });
      index += value[0].length;
      continue;
    }
    const foreach = matchAt(FOREACH_TAG, text, index);
    if (foreach !== undefined) {
      const list = toReference(foreach[2] ?? '', foreach[0], index);
      references.push({ reference: list, scope: scope() });
      const end = standaloneEnd(text, index, index + foreach[0].length, top());
      flush(top());
      stack.push({ item: foreach[1] ?? '', list, parts: [], raw: foreach[0], offset: index, literal: '' });
      index = end;
      continue;
    }
    if (matchAt(FOREACH_START, text, index) !== undefined) {
      const token = text.slice(index, lineEnd(text, index));
      problems.push({
        code: 'bad_foreach',
        message: `${token} is not a foreach tag; write {foreach item in list} ... {/foreach}, or {{foreach for literal text`,
        token,
        offset: index,
      });
      top().literal += character;
      index += 1;
      continue;
    }
    if (text.startsWith(FOREACH_END, index)) {
      const block = top();
      const end = standaloneEnd(text, index, index + FOREACH_END.length, block);
      if (stack.length === 1) {
        problems.push({
          code: 'unopened_foreach_end',
          message: `${FOREACH_END} closes no {foreach}; remove it, or open the block with {foreach item in list}`,
          token: FOREACH_END,
          offset: index,
        });
      } else {
        flush(block);
        stack.pop();
        top().parts.push({ kind: 'foreach', item: block.item, list: block.list, body: block.parts });
      }
      index = end;
      continue;
    }
    top().literal += character;
    index += 1;
  }
  for (const block of stack.slice(1)) {
    problems.push({
      code: 'unclosed_foreach',
      message: `${block.raw} has no {/foreach}; close the block with {/foreach}`,
      token: block.raw,
      offset: block.offset,
    });
  }
  if (problems.length > 0) return { ok: false, problems };
  flush(root);
  return { ok: true, template: { parts: root.parts, references } };
}

const emptyReference: TemplateReference = { root: '', accessors: [], path: '', raw: '', offset: 0 };

function matchAt(pattern: RegExp, text: string, index: number): RegExpExecArray | undefined {
  pattern.lastIndex = index;
  return pattern.exec(text) ?? undefined;
}

function toReference(path: string, raw: string, offset: number): TemplateReference {
  const rootName = /^[A-Za-z_][A-Za-z0-9_]*/.exec(path)?.[0] ?? '';
  const accessors = [...path.slice(rootName.length).matchAll(ACCESSOR)].map((match): TemplateAccessor =>
    match[2] === undefined ? { kind: 'index', index: Number(match[1]) } : { kind: 'field', name: match[2] },
  );
  return { root: rootName, accessors, path, raw, offset };
}

function lineEnd(text: string, index: number): number {
  const newline = text.indexOf('\n', index);
  return newline === -1 ? text.length : newline;
}

/**
 * Where reading resumes after a block tag at [start, end): past its line's end when the tag stands alone on
 * its line (then the indentation before it is dropped too), so block tags leave no blank lines behind.
 */
function standaloneEnd(text: string, start: number, end: number, block: OpenBlock): number {
  const lineStart = text.lastIndexOf('\n', start - 1) + 1;
  const after = lineEnd(text, end);
  const alone = /^[ \t]*$/.test(text.slice(lineStart, start)) && /^[ \t\r]*$/.test(text.slice(end, after));
  if (!alone) return end;
  block.literal = block.literal.replace(/[ \t]*$/, '');
  return Math.min(after + 1, text.length);
}
