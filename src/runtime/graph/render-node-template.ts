import { resolveOutputPath } from './resolve-output-path.js';
import { parseTemplate } from './template.js';
import type { TemplateVariable } from './template.js';

/** A rendered template, or why it could not be rendered. */
export type Rendered =
  | { readonly ok: true; readonly text: string }
  | {
      readonly ok: false;
      readonly code: 'template_error' | 'bad_output_path';
      readonly message: string;
    }
  | {
      readonly ok: false;
      readonly code: 'output_too_large';
      readonly message: string;
      /** UTF-8 bytes the rendered text would have had. */
      readonly bytes: number;
      readonly limit: number;
    };

/** Value of a template variable (`goal`, `run_id`, `plan.output`); undefined when it has none for this node. */
export type TemplateLookup = (name: string) => string | undefined;

/** Options of {@link renderNodeTemplate}. */
export interface RenderOptions {
  /** Most UTF-8 bytes the rendered text may have; checked from the parts before they are joined. */
  readonly maxBytes?: number;
}

/**
 * Renders one template of a node (prompt, content or output path) with the run's variables; a text that would
 * exceed `maxBytes` is never built (`output_too_large`).
 */
export function renderNodeTemplate(
  template: string,
  lookup: TemplateLookup,
  options: RenderOptions = {},
): Rendered {
  const parsed = parseTemplate(template);
  const missing: string[] = [];
  // Each variable's value and its UTF-8 size, measured once however often the template repeats it.
  const measured = new Map<string, { readonly value: string; readonly bytes: number }>();
  let bytes = 0;
  const pieces = parsed.parts.map((part) => {
    if (part.kind === 'text') {
      bytes += Buffer.byteLength(part.text, 'utf8');
      return part.text;
    }
    const name = nameOf(part.variable);
    let known = measured.get(name);
    if (known === undefined) {
      const value = lookup(name);
      if (value === undefined) missing.push(part.variable.raw);
      known = { value: value ?? '', bytes: Buffer.byteLength(value ?? '', 'utf8') };
      measured.set(name, known);
    }
    bytes += known.bytes;
    return known.value;
  });
  if (missing.length > 0) {
    return {
      ok: false,
      code: 'template_error',
      message: `${[...new Set(missing)].join(', ')} ${missing.length === 1 ? 'has' : 'have'} no value in this run`,
    };
  }
  const { maxBytes } = options;
  // Summed from the parts: `{a.output}{a.output}` doubling 40 times must fail here, not in join().
  if (maxBytes !== undefined) {
    if (bytes > maxBytes) {
      return {
        ok: false,
        code: 'output_too_large',
        message: `it would render to ${String(bytes)} bytes, over the limit of ${String(maxBytes)} bytes`,
        bytes,
        limit: maxBytes,
      };
    }
  }
  return { ok: true, text: pieces.join('') };
}

/** Renders a node's output_path and resolves it under docs/ or audits/ (spec runtime.md). */
export function renderOutputPath(template: string, lookup: TemplateLookup): Rendered {
  const rendered = renderNodeTemplate(template, lookup);
  if (!rendered.ok) return rendered;
  const resolved = resolveOutputPath(rendered.text);
  return resolved.ok
    ? { ok: true, text: resolved.path }
    : { ok: false, code: 'bad_output_path', message: resolved.message };
}

function nameOf(variable: TemplateVariable): string {
  return variable.kind === 'name' ? variable.name : `${variable.nodeId}.output`;
}
