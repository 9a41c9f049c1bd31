import { describe, expect, it } from 'vitest';
import {
  asTemplateList,
  renderWorkflowTemplate,
  templateText,
  type TemplateValue,
  type TemplateValues,
} from '../../../src/workflow/definition/render-workflow-template.js';
import { parseWorkflowTemplate } from '../../../src/workflow/definition/workflow-template.js';

function render(text: string, values: TemplateValues) {
  const parsed = parseWorkflowTemplate(text);
  if (!parsed.ok) throw new Error(parsed.problems[0]?.message);
  return renderWorkflowTemplate(parsed.template, values);
}

const VALUES: TemplateValues = {
  feature: 'login',
  decomposition: '1. parse input\n2. check password\n',
  tasks: ['api', 'readme'],
  task: { text: 'Write the API', index: 1, total: 2, owner: { name: 'ann' } },
  n: 3,
  done: true,
  groups: [
    { name: 'a', members: ['x', 'y'] },
    { name: 'b', members: ['z'] },
  ],
};

describe('renderWorkflowTemplate', () => {
  it.each<[string, string, string]>([
    ['a name', 'Scope {feature}.', 'Scope login.'],
    ['a number and a flag', '{n} {done}', '3 true'],
    ['an index into a list', '{tasks[1]}', 'readme'],
    ['an index into text, by its lines without list markers', '{decomposition[0]}', 'parse input'],
    ['a field', '{task.index}/{task.total}', '1/2'],
    ['a field of a field', '{task.owner.name}', 'ann'],
    ['a mapping with a text field, whole', '{task}', 'Write the API'],
    ['a list, one item per line', '{tasks}', 'api\nreadme'],
    ['literal braces around a variable', '{{{feature}}}', '{login}'],
    ['a foreach over a list', '{foreach t in tasks}[{t}]{/foreach}', '[api][readme]'],
    [
      'a foreach over text lines',
      '{foreach s in decomposition}\n- {s}\n{/foreach}',
      '- parse input\n- check password\n',
    ],
    [
      'nested foreach blocks',
      '{foreach g in groups}{g.name}:{foreach m in g.members} {m}{/foreach};{/foreach}',
      'a: x y;b: z;',
    ],
    ['a foreach over an empty list', 'x{foreach t in none}{t}{/foreach}y', 'xy'],
    ['a value that looks like a variable, unexpanded', '{code}', '{feature}'],
  ])('renders %s', (_, text, expected) => {
    expect(render(text, { ...VALUES, none: [], code: '{feature}' })).toEqual({ ok: true, text: expected });
  });

  it.each<[string, string, string, string[]]>([
    [
      'an unknown name',
      'Do {nothing}',
      'missing_value',
      ['{nothing} has no value: no input, output or built-in named "nothing" is set'],
    ],
    [
      'an index past the end',
      '{tasks[5]}',
      'missing_value',
      ['{tasks[5]} has no value: tasks has 2 items, so [5] is past its end'],
    ],
    [
      'a missing field',
      '{task.owner.email}',
      'missing_value',
      ['{task.owner.email} has no value: task.owner has no field "email"'],
    ],
    [
      'an index into a number',
      '{n[0]}',
      'not_a_list',
      ['{n[0]} needs n to be a list or text, but it is a number'],
    ],
    [
      'a foreach over a mapping',
      '{foreach x in task}{x}{/foreach}',
      'not_a_list',
      ['{task} in {foreach x in task} needs task to be a list or text, but it is a mapping'],
    ],
    [
      'every missing value at once, each once',
      '{a} {b} {a}',
      'missing_value',
      [
        '{a} has no value: no input, output or built-in named "a" is set',
        '{b} has no value: no input, output or built-in named "b" is set',
      ],
    ],
  ])('refuses %s, rendering nothing', (_, text, code, messages) => {
    const result = render(text, VALUES);
    expect(result).toMatchObject({ ok: false, code });
    if (result.ok) return;
    expect(result.problems.map((problem) => problem.message)).toEqual(messages);
    expect(result.message).toBe(messages.join('; '));
    expect(result).not.toHaveProperty('text');
  });
});

describe('asTemplateList', () => {
  it.each<[string, TemplateValue, TemplateValue[] | undefined]>([
    ['a list as it is', ['a', 'b'], ['a', 'b']],
    ['text as its non-empty lines', 'one\n\n two \r\nthree', ['one', 'two', 'three']],
    [
      'markdown list markers removed',
      '- a\n* b\n+ c\n1. d\n2) e\n-not a marker',
      ['a', 'b', 'c', 'd', 'e', '-not a marker'],
    ],
    ['no list for a number', 3, undefined],
    ['no list for a mapping', { a: 'b' }, undefined],
  ])('reads %s', (_, value, expected) => {
    expect(asTemplateList(value)).toEqual(expected);
  });
});

describe('templateText', () => {
  it('shows a mapping without a text field as indented JSON', () => {
    expect(templateText({ a: 1 })).toBe('{\n  "a": 1\n}');
  });
});
