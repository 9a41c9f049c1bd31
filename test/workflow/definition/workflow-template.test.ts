import { describe, expect, it } from 'vitest';
import {
  parseWorkflowTemplate,
  type WorkflowTemplate,
} from '../../../src/workflow/definition/workflow-template.js';

function parsed(text: string): WorkflowTemplate {
  const result = parseWorkflowTemplate(text);
  if (!result.ok) throw new Error(`expected a template, got ${result.problems[0]?.message ?? ''}`);
  return result.template;
}

describe('parseWorkflowTemplate', () => {
  it.each<[string, string, unknown[]]>([
    ['plain text', 'no variables', [{ kind: 'text', text: 'no variables' }]],
    [
      'a name',
      'Scope {feature}.',
      [
        { kind: 'text', text: 'Scope ' },
        {
          kind: 'value',
          reference: { root: 'feature', accessors: [], path: 'feature', raw: '{feature}', offset: 6 },
        },
        { kind: 'text', text: '.' },
      ],
    ],
    [
      'an index',
      '{decomposition[0]}',
      [
        {
          kind: 'value',
          reference: {
            root: 'decomposition',
            accessors: [{ kind: 'index', index: 0 }],
            path: 'decomposition[0]',
            raw: '{decomposition[0]}',
            offset: 0,
          },
        },
      ],
    ],
    [
      'a chain of fields and indexes',
      '{a.b[12].c}',
      [
        {
          kind: 'value',
          reference: {
            root: 'a',
            accessors: [
              { kind: 'field', name: 'b' },
              { kind: 'index', index: 12 },
              { kind: 'field', name: 'c' },
            ],
            path: 'a.b[12].c',
            raw: '{a.b[12].c}',
            offset: 0,
          },
        },
      ],
    ],
    ['literal braces', '{{feature}} and }}', [{ kind: 'text', text: '{feature} and }' }]],
    [
      'braces that hold no reference',
      'a {b c} {"json": 1} {} {1x}',
      [{ kind: 'text', text: 'a {b c} {"json": 1} {} {1x}' }],
    ],
  ])('reads %s', (_, text, parts) => {
    expect(parsed(text).parts).toEqual(parts);
  });

  it('reads a foreach block whose standalone tags take their lines with them', () => {
    const template = parsed('Review:\n  {foreach a in artefacts}\n- {a}\n  {/foreach}\nDone.');
    expect(template.parts).toMatchObject([
      { kind: 'text', text: 'Review:\n' },
      {
        kind: 'foreach',
        item: 'a',
        list: { root: 'artefacts', raw: '{foreach a in artefacts}' },
        body: [
          { kind: 'text', text: '- ' },
          { kind: 'value', reference: { root: 'a' } },
          { kind: 'text', text: '\n' },
        ],
      },
      { kind: 'text', text: 'Done.' },
    ]);
  });

  it('keeps the text around a foreach tag written inside a line', () => {
    const template = parsed('[{foreach x in xs}{x},{/foreach}]');
    expect(template.parts).toMatchObject([
      { kind: 'text', text: '[' },
      { kind: 'foreach', item: 'x', body: [{ kind: 'value' }, { kind: 'text', text: ',' }] },
      { kind: 'text', text: ']' },
    ]);
  });

  it('nests foreach blocks and records each reference with the foreach variables in scope', () => {
    const template = parsed('{foreach g in groups}{foreach m in g.members}{m}{run_id}{/foreach}{/foreach}');
    expect(template.references.map(({ reference, scope }) => [reference.path, scope])).toEqual([
      ['groups', []],
      ['g.members', ['g']],
      ['m', ['g', 'm']],
      ['run_id', ['g', 'm']],
    ]);
  });

  it.each<[string, string, string, string]>([
    [
      'an unclosed foreach',
      'x {foreach a in xs}{a}',
      'unclosed_foreach',
      '{foreach a in xs} has no {/foreach}; close the block with {/foreach}',
    ],
    [
      'a foreach end without a start',
      'x{/foreach}',
      'unopened_foreach_end',
      '{/foreach} closes no {foreach}; remove it, or open the block with {foreach item in list}',
    ],
    [
      'a malformed foreach',
      '{foreach a of xs}{a}{/foreach}',
      'bad_foreach',
      '{foreach a of xs}{a}{/foreach} is not a foreach tag; write {foreach item in list} ... {/foreach}, or {{foreach for literal text',
    ],
  ])('refuses %s', (_, text, code, message) => {
    const result = parseWorkflowTemplate(text);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems[0]).toMatchObject({ code, message });
  });

  it('reports every syntax problem at once', () => {
    const result = parseWorkflowTemplate('{/foreach}\n{foreach a in b}');
    expect(result.ok ? [] : result.problems.map((problem) => problem.code)).toEqual([
      'unopened_foreach_end',
      'unclosed_foreach',
    ]);
  });
});
