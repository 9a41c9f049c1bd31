import { resolveOutputPath } from './resolve-output-path.js';
import { parseTemplate, renderTemplate } from './template.js';
import type { TemplateVariable } from './template.js';

/** A rendered template, or why it could not be rendered. */
export type Rendered =
  | { readonly ok: true; readonly text: string }
  | { readonly ok: false; readonly code: 'template_error' | 'bad_output_path'; readonly message: string };

/** Value of a template variable (`goal`, `run_id`, `plan.output`); undefined when it has none for this node. */
export type TemplateLookup = (name: string) => string | undefined;

/** Renders one template of a node (prompt, content or output path) with the run's variables. */
export function renderNodeTemplate(template: string, lookup: TemplateLookup): Rendered {
  const parsed = parseTemplate(template);
  const missing: string[] = [];
  const text = renderTemplate(parsed, (variable) => {
    const value = lookup(nameOf(variable));
    if (value === undefined) missing.push(variable.raw);
    return value ?? '';
  });
  if (missing.length === 0) return { ok: true, text };
  return {
    ok: false,
    code: 'template_error',
    message: `${[...new Set(missing)].join(', ')} ${missing.length === 1 ? 'has' : 'have'} no value in this run`,
  };
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
