import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, type ConfigIssue } from '../../../src/config/index.js';
import { parseWorkflow } from '../../../src/workflow/definition/load-workflow.js';

function issuesOf(text: string): readonly ConfigIssue[] {
  try {
    parseWorkflow(text, 'w.yaml');
  } catch (error) {
    if (error instanceof ConfigError) return error.issues;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

/** A workflow with the given steps (YAML text indented under steps:). */
function workflow(steps: string, head = 'inputs: [feature]\n'): string {
  return `name: w\nversion: "1"\n${head}steps:\n${steps}`;
}

describe('workflowSchema', () => {
  it('accepts a valid workflow and fills in the defaults', () => {
    const definition = parseWorkflow(workflow('  - id: a\n    instruction: Do {feature}\n'), 'w.yaml');
    expect(definition.steps).toEqual([
      expect.objectContaining({
        id: 'a',
        type: 'action',
        instructions: 'Do {feature}',
        nextAction: 'workflow_advance',
        complete: false,
        artefacts: false,
        requireRegistration: false,
      }),
    ]);
    expect(definition).toMatchObject({ name: 'w', version: '1', description: '', inputs: ['feature'] });
  });

  it('keeps each step type with its own key', () => {
    const definition = parseWorkflow(
      workflow(
        '  - id: plan\n    instructions: plan\n    save_as: tasks\n' +
          '  - id: each\n    type: loop\n    over: tasks\n    instructions: "{task}"\n' +
          '  - id: again\n    type: ralph\n    n: 2\n    instructions: "{iteration}/{n}"\n',
      ),
      'w.yaml',
    );
    expect(
      definition.steps.map((step) => [step.type, 'over' in step ? step.over : 'n' in step ? step.n : null]),
    ).toEqual([
      ['action', null],
      ['loop', 'tasks'],
      ['ralph', 2],
    ]);
  });

  it.each<
    [string, string, [path: string, line: number | undefined, column: number | undefined, message: string][]]
  >([
    [
      'a list instead of a mapping',
      '- name\n',
      [
        [
          '',
          1,
          1,
          'expected a mapping with name, version, inputs and steps, got a list; see docs/workflows.md',
        ],
      ],
    ],
    [
      'an empty document',
      '',
      [
        ['name', undefined, undefined, 'missing; add name: my_workflow'],
        ['version', undefined, undefined, 'missing; add version: "1"'],
        ['steps', undefined, undefined, 'missing; add steps: with a list of steps'],
      ],
    ],
    [
      'a misspelt step key',
      workflow('  - id: a\n    instructions: x\n    save-as: y\n'),
      [
        [
          'steps[0].save-as',
          7,
          5,
          'unknown key "save-as"; did you mean "save_as"? Rename it, or remove it (allowed here: id, type, instructions, instruction, save_as, next_action, complete, agent, artefacts, require_registration, over, contract, n)',
        ],
      ],
    ],
    [
      'a misspelt step type',
      workflow('  - id: a\n    type: lop\n    instructions: x\n'),
      [['steps[0].type', 6, 11, 'unknown step type "lop"; did you mean "loop"?']],
    ],
    [
      'a step id outside the id pattern',
      workflow('  - id: "../a"\n    instructions: x\n'),
      [['steps[0].id', 5, 9, expect.stringContaining('"../a" is not a valid step id; must match')]],
    ],
    [
      'duplicate step ids',
      workflow('  - id: a\n    instructions: x\n  - id: a\n    instructions: y\n'),
      [['steps[1].id', 7, 9, 'step id "a" is already used by steps[0]; give each step its own id']],
    ],
    [
      'both instructions and instruction',
      workflow('  - id: a\n    instructions: x\n    instruction: y\n'),
      [
        [
          'steps[0].instruction',
          7,
          5,
          'step "a" has both instructions: and instruction:; keep one (instruction is an alias of instructions)',
        ],
      ],
    ],
    [
      'no instructions',
      workflow('  - id: a\n    save_as: x\n'),
      [['steps[0]', 5, 5, 'step "a" has no instructions; add instructions: | with what the agent should do']],
    ],
    [
      'empty instructions',
      workflow('  - id: a\n    instructions: ""\n'),
      [['steps[0].instructions', 6, 19, 'the instructions are empty; say what the agent should do']],
    ],
    [
      'over on an action step',
      workflow('  - id: a\n    over: feature\n    instructions: x\n'),
      [
        [
          'steps[0].over',
          6,
          5,
          'over: only applies to loop steps, and step "a" is of type action; remove over: or write type: loop',
        ],
      ],
    ],
    [
      'a loop without over',
      workflow('  - id: a\n    type: loop\n    instructions: x\n'),
      [
        [
          'steps[0]',
          5,
          5,
          'step "a" is a loop step without over:; add over: tasks (an input or an earlier save_as holding a list)',
        ],
      ],
    ],
    [
      'over naming nothing',
      workflow(
        '  - id: a\n    instructions: x\n    save_as: tasks\n  - id: b\n    type: loop\n    over: taks\n    instructions: x\n',
      ),
      [
        [
          'steps[1].over',
          10,
          11,
          'over: taks names no input and no earlier save_as (known here: feature, tasks); did you mean "tasks"? declare it under inputs: or save an earlier step\'s output with save_as: taks',
        ],
      ],
    ],
    [
      'over naming a later save_as',
      workflow(
        '  - id: a\n    type: loop\n    over: tasks\n    instructions: x\n  - id: b\n    instructions: y\n    save_as: tasks\n',
      ),
      [
        [
          'steps[0].over',
          7,
          11,
          'over: tasks is saved by a later step, step "b", so it has no value when step "a" starts; loop over an input or an earlier save_as',
        ],
      ],
    ],
    [
      'n on a loop step',
      workflow('  - id: a\n    type: loop\n    over: feature\n    n: 2\n    instructions: x\n'),
      [
        [
          'steps[0].n',
          8,
          5,
          'n: only applies to ralph steps, and step "a" is of type loop; remove n: or write type: ralph',
        ],
      ],
    ],
    [
      'a ralph step without n',
      workflow('  - id: a\n    type: ralph\n    instructions: x\n'),
      [['steps[0]', 5, 5, 'step "a" is a ralph step without n:; add n: 3']],
    ],
    [
      'a fractional n',
      workflow('  - id: a\n    type: ralph\n    n: 1.5\n    instructions: x\n'),
      [['steps[0].n', 7, 8, '1.5 is not a whole number; write n: 3']],
    ],
    [
      'n below 1',
      workflow('  - id: a\n    type: ralph\n    n: 0\n    instructions: x\n'),
      [['steps[0].n', 7, 8, 'n must be at least 1; write n: 3']],
    ],
    [
      'complete: true twice',
      workflow(
        '  - id: a\n    instructions: x\n    complete: true\n  - id: b\n    instructions: y\n    complete: true\n',
      ),
      [
        [
          'steps[1].complete',
          10,
          15,
          'complete: true is already on step "a"; only one step may complete the workflow',
        ],
      ],
    ],
    [
      'steps after the completing step',
      workflow('  - id: a\n    instructions: x\n    complete: true\n  - id: b\n    instructions: y\n'),
      [
        [
          'steps[0].complete',
          7,
          15,
          'step "a" completes the workflow, so the 1 step(s) after it (step "b") would never run; move complete: true to the last step or remove those steps',
        ],
      ],
    ],
    [
      'require_registration without artefacts',
      workflow('  - id: a\n    instructions: x\n    require_registration: true\n'),
      [
        [
          'steps[0].require_registration',
          7,
          27,
          'step "a" requires registration but does not tell the agent to register; add artefacts: true',
        ],
      ],
    ],
    [
      'a save_as used twice',
      workflow(
        '  - id: a\n    instructions: x\n    save_as: out\n  - id: b\n    instructions: y\n    save_as: out\n',
      ),
      [
        [
          'steps[1].save_as',
          10,
          14,
          'save_as: out is already used by step "a"; give each output its own name',
        ],
      ],
    ],
    [
      'a save_as named like an input',
      workflow('  - id: a\n    instructions: x\n    save_as: feature\n'),
      [
        [
          'steps[0].save_as',
          7,
          14,
          '"feature" is also an input, so {feature} would be ambiguous; save the output under another name',
        ],
      ],
    ],
    [
      'a save_as named like a built-in',
      workflow('  - id: a\n    instructions: x\n    save_as: task\n'),
      [
        [
          'steps[0].save_as',
          7,
          14,
          '{task} is a built-in set by the engine; save the output under another name',
        ],
      ],
    ],
    [
      'an input named like a built-in',
      workflow('  - id: a\n    instructions: x\n', 'inputs: [run_id]\n'),
      [['inputs[0]', 3, 10, '{run_id} is a built-in set by the engine; name the input something else']],
    ],
    [
      'an unknown template variable',
      workflow('  - id: a\n    instructions: "Scope {featur} now"\n'),
      [
        [
          'steps[0].instructions',
          6,
          26,
          "unknown template variable {featur} (known here: {feature}, {run_id}, {step}, {artefacts}); did you mean {feature}? Otherwise declare it under inputs:, save an earlier step's output with save_as: featur, or write {{featur}} for literal braces",
        ],
      ],
    ],
    [
      'the second occurrence of a variable in a block scalar',
      workflow('  - id: a\n    instructions: |\n      ok {feature}\n      {nope.x} and {nope.x}\n'),
      [
        [
          'steps[0].instructions',
          8,
          7,
          expect.stringContaining('unknown template variable {nope} (known here:'),
        ],
      ],
    ],
    [
      "a later step's save_as",
      workflow('  - id: a\n    instructions: "{plan}"\n  - id: b\n    instructions: x\n    save_as: plan\n'),
      [
        [
          'steps[0].instructions',
          6,
          20,
          '{plan} is saved (save_as: plan) by a later step, step "b", so it has no value yet here; use it in a later step',
        ],
      ],
    ],
    [
      "the step's own save_as",
      workflow('  - id: a\n    instructions: "{plan}"\n    save_as: plan\n'),
      [
        [
          'steps[0].instructions',
          6,
          20,
          '{plan} is saved (save_as: plan) by this step itself, so it has no value yet here; use it in a later step',
        ],
      ],
    ],
    [
      '{iteration} outside a ralph step',
      workflow('  - id: a\n    instructions: "pass {iteration}"\n'),
      [
        [
          'steps[0].instructions',
          6,
          25,
          '{iteration} is only set in ralph steps (type: ralph), and step "a" is of type action; change the step\'s type or remove {iteration}',
        ],
      ],
    ],
    [
      '{n} in a loop step',
      workflow('  - id: a\n    type: loop\n    over: feature\n    instructions: "of {n}"\n'),
      [
        [
          'steps[0].instructions',
          8,
          23,
          '{n} is only set in ralph steps (type: ralph), and step "a" is of type loop; change the step\'s type or remove {n}',
        ],
      ],
    ],
    [
      '{task.index} outside a loop step',
      workflow('  - id: a\n    type: ralph\n    n: 2\n    instructions: "{task.index}"\n'),
      [
        [
          'steps[0].instructions',
          8,
          20,
          '{task} is only set in loop steps (type: loop), and step "a" is of type ralph; change the step\'s type or remove {task}',
        ],
      ],
    ],
    [
      'an unclosed foreach',
      workflow('  - id: a\n    instructions: |\n      {foreach f in feature}\n      - {f}\n'),
      [
        [
          'steps[0].instructions',
          7,
          7,
          '{foreach f in feature} has no {/foreach}; close the block with {/foreach}',
        ],
      ],
    ],
    [
      'a foreach variable used outside its block',
      workflow('  - id: a\n    instructions: "{foreach f in feature}{f}{/foreach}{f}"\n'),
      [
        [
          'steps[0].instructions',
          6,
          55,
          expect.stringContaining('unknown template variable {f} (known here:'),
        ],
      ],
    ],
  ])('reports %s with its line and column', (_, text, expected) => {
    expect(issuesOf(text).map((issue) => [issue.path, issue.line, issue.column, issue.message])).toEqual(
      expected,
    );
  });

  it('reports every problem of a file at once', () => {
    const issues = issuesOf(
      workflow(
        '  - id: a\n    type: loop\n    instructions: "{nope}"\n    compleet: true\n  - id: a\n    n: 2\n    instructions: x\n',
      ),
    );
    expect(issues.map((issue) => issue.path)).toEqual([
      'steps[0]',
      'steps[0].instructions',
      'steps[0].compleet',
      'steps[1].id',
      'steps[1].n',
    ]);
  });

  it('accepts literal braces, foreach variables and every built-in valid for the step type', () => {
    const text = workflow(
      '  - id: a\n    instructions: "{{not_a_var}} {run_id} {step} {artefacts} {foreach f in feature}{f}{/foreach}"\n' +
        '  - id: b\n    type: loop\n    over: feature\n    instructions: "{task} {task.index} {task.title}"\n' +
        '  - id: c\n    type: ralph\n    n: 1\n    instructions: "{iteration} {n}"\n',
    );
    expect(parseWorkflow(text, 'w.yaml').steps).toHaveLength(3);
  });
});

describe('workflowSchema: contract: and budgets:', () => {
  it('keeps a step contract and the budgets; a workflow without budgets has none', () => {
    const definition = parseWorkflow(
      workflow(
        '  - id: a\n    type: ralph\n    n: 2\n    contract: development_result\n    instructions: go\n  - id: b\n    instructions: review\n',
        'budgets:\n  max_fix_attempts: 1\n  max_agent_calls: 5\n  max_minutes: 30\n',
      ),
      'w.yaml',
    );
    expect(definition.steps.map((step) => step.contract)).toEqual(['development_result', undefined]);
    expect(definition.budgets).toEqual({ max_fix_attempts: 1, max_agent_calls: 5, max_minutes: 30 });
    expect(parseWorkflow(workflow('  - id: a\n    instructions: go\n'), 'w.yaml').budgets).toEqual({});
  });

  it.each([
    [
      'a misspelt contract type',
      workflow('  - id: a\n    contract: developmnt_result\n    instructions: go\n'),
      [
        'steps[0].contract',
        expect.stringMatching(
          /^unknown contract type "developmnt_result"; did you mean "development_result"\?/,
        ),
      ],
    ],
    [
      'a contract type nothing like a known one',
      workflow('  - id: a\n    contract: 42\n    instructions: go\n'),
      ['steps[0].contract', expect.stringContaining('write one of product_spec, planning_analysis_decision')],
    ],
    [
      'a misspelt budget',
      workflow('  - id: a\n    instructions: go\n', 'budgets:\n  max_agent_call: 3\n'),
      ['budgets.max_agent_call', expect.stringContaining('did you mean "max_agent_calls"?')],
    ],
    [
      'a budget of zero minutes',
      workflow('  - id: a\n    instructions: go\n', 'budgets:\n  max_minutes: 0\n'),
      ['budgets.max_minutes', 'must be more than 0; write max_minutes: 30'],
    ],
    [
      'a fractional number of agent calls',
      workflow('  - id: a\n    instructions: go\n', 'budgets:\n  max_agent_calls: 1.5\n'),
      ['budgets.max_agent_calls', 'expected a whole number; write it as max_agent_calls: 20'],
    ],
  ])('reports %s', (_, text, expected) => {
    expect(issuesOf(text).map((issue) => [issue.path, issue.message])).toEqual([expected]);
  });
});

describe('docs/workflows.md, "Contracts and budgets"', () => {
  it('documents an example that loads, with its contracts and budgets', () => {
    const doc = readFileSync(path.resolve(import.meta.dirname, '../../../docs/workflows.md'), 'utf8');
    const section = doc.slice(doc.indexOf('## Contracts and budgets'));
    const yaml = /```yaml\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
    const definition = parseWorkflow(yaml, 'workflows.md');
    expect(definition.budgets).toEqual({ max_fix_attempts: 1, max_agent_calls: 6 });
    expect(definition.steps.map((step) => step.contract)).toEqual(['development_result', 'issues']);
  });
});
