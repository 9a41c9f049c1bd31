import { describe, expect, it } from 'vitest';
import { parseTemplate, renderTemplate, type TemplateVariable } from '../../../src/runtime/graph/template.js';

/** Renders with every variable shown as `<kind:name>`, so the table reads what was parsed as a variable. */
function show(text: string): string {
  return renderTemplate(parseTemplate(text), (variable) =>
    variable.kind === 'name' ? `<${variable.name}>` : `<output:${variable.nodeId}>`,
  );
}

describe('parseTemplate', () => {
  it.each([
    // [template, rendered with markers]
    ['plain text', 'plain text'],
    ['', ''],
    ['Write a plan for: {goal}', 'Write a plan for: <goal>'],
    ['{run_id}', '<run_id>'],
    ['{_private}', '<_private>'],
    ['{goal}{goal}', '<goal><goal>'],
    ['{plan.output}', '<output:plan>'],
    ['{task.api-v2.output}', '<output:task.api-v2>'],
    ['{1st.output}', '<output:1st>'],
    ['docs/single_{run_id}.md', 'docs/single_<run_id>.md'],
  ])('reads the variables of %j', (template, expected) => {
    expect(show(template)).toBe(expected);
  });

  it.each([
    ['{{', '{'],
    ['}}', '}'],
    ['{{goal}}', '{goal}'],
    ['{{{goal}}}', '{<goal>}'],
    ['{{plan.output}}', '{plan.output}'],
    ['a {{ b }} c', 'a { b } c'],
    ['{{{{', '{{'],
  ])('writes %j with escaped braces as %j', (template, expected) => {
    expect(show(template)).toBe(expected);
  });

  it.each([
    ["import { x } from 'y'", "import { x } from 'y'"],
    ['function f() { return 1; }', 'function f() { return 1; }'],
    ['const o = { a: 1 };', 'const o = { a: 1 };'],
    ['{ goal }', '{ goal }'],
    ['{goal }', '{goal }'],
    ['{}', '{}'],
    ['{', '{'],
    ['}', '}'],
    ['{goal', '{goal'],
    ['goal}', 'goal}'],
    ['{my-goal}', '{my-goal}'],
    ['{1goal}', '{1goal}'],
    ['{plan.outputs}', '{plan.outputs}'],
    ['{plan.Output}', '{plan.Output}'],
    ['{.output}', '{.output}'],
    ['{plan output}', '{plan output}'],
    ['{"a": 1}', '{"a": 1}'],
    ['{a{goal}', '{a<goal>'],
    ['{goal}}', '<goal>}'],
    ['{é}', '{é}'],
  ])('keeps %j as literal text where it is no variable', (template, expected) => {
    expect(show(template)).toBe(expected);
  });

  it('collapses a doubled closing brace in code, as the escape rule says', () => {
    // The documented price of `}}` as an escape: nested code must write `}}}}` to keep two braces.
    expect(show('{"a":{"b":1}}')).toBe('{"a":{"b":1}');
    expect(show('{"a":{"b":1}}}}')).toBe('{"a":{"b":1}}');
  });

  it('lists every variable occurrence with its kind, text and offset', () => {
    expect(parseTemplate('{{x}} {goal} and {plan.output}, {goal}').variables).toEqual<TemplateVariable[]>([
      { kind: 'name', name: 'goal', raw: '{goal}', offset: 6 },
      { kind: 'node_output', nodeId: 'plan', raw: '{plan.output}', offset: 17 },
      { kind: 'name', name: 'goal', raw: '{goal}', offset: 32 },
    ]);
  });

  it('splits the text into literal runs and variables', () => {
    expect(parseTemplate('a {{b}} {c}!').parts).toEqual([
      { kind: 'text', text: 'a {b} ' },
      { kind: 'variable', variable: { kind: 'name', name: 'c', raw: '{c}', offset: 8 } },
      { kind: 'text', text: '!' },
    ]);
  });

  it('accepts a node id of 128 characters and no longer one', () => {
    const longest = `n${'x'.repeat(127)}`;
    expect(show(`{${longest}.output}`)).toBe(`<output:${longest}>`);
    expect(show(`{${longest}x.output}`)).toBe(`{${longest}x.output}`);
  });

  // Its time is measured in `npm run bench` (t(2n)/t(n), test/bench/hostile-inputs.ts); here, the result.
  it('parses a long run of unclosed braces as text with no variable', () => {
    const text = `{${'a'.repeat(100)}`.repeat(20_000);
    const template = parseTemplate(text);
    expect(template.variables).toEqual([]);
    expect(template.parts).toEqual([{ kind: 'text', text }]);
  });
});

describe('renderTemplate', () => {
  it('fills in each variable with its value', () => {
    const values: Record<string, string> = { goal: 'a URL shortener', run_id: 'r1', 'plan.output': '# Plan' };
    const rendered = renderTemplate(parseTemplate('{goal} ({run_id}): {plan.output}'), (variable) =>
      variable.kind === 'name'
        ? (values[variable.name] ?? '?')
        : (values[`${variable.nodeId}.output`] ?? '?'),
    );
    expect(rendered).toBe('a URL shortener (r1): # Plan');
  });

  it('renders in a single pass: a value holding {x} or {{ is written as is', () => {
    const parsed = parseTemplate('goal: {goal}; run: {run_id}');
    const rendered = renderTemplate(parsed, (variable) =>
      variable.kind === 'name' && variable.name === 'goal' ? '{run_id} {{x}} {goal}' : 'r1',
    );
    expect(rendered).toBe('goal: {run_id} {{x}} {goal}; run: r1');
  });

  it('asks for a value once per occurrence', () => {
    const asked: string[] = [];
    renderTemplate(parseTemplate('{a}{b}{a}'), (variable) => {
      asked.push(variable.raw);
      return '';
    });
    expect(asked).toEqual(['{a}', '{b}', '{a}']);
  });

  it('renders a template without variables to its literal text', () => {
    expect(renderTemplate(parseTemplate('x {{y}} z'), () => 'never')).toBe('x {y} z');
  });
});
