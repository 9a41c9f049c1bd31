import { describe, expect, it } from 'vitest';
import { ConfigError, type ConfigIssue } from '../../../src/config/config-error.js';
import { checkGraphRules } from '../../../src/runtime/graph/check-graph-rules.js';
import { parseGraph } from '../../../src/runtime/graph/load-graph.js';

// Nodes start on line 5.
const HEADER = 'name: g\nversion: "1"\ninputs: [goal]\nnodes:\n';

function issuesOf(nodes: string): readonly ConfigIssue[] {
  try {
    parseGraph(`${HEADER}${nodes}`, 'g.yaml');
  } catch (error) {
    if (error instanceof ConfigError) return error.issues;
    throw error;
  }
  return [];
}

/**
 * A node in YAML, five lines (id, type, agent, prompt, output_path) plus extras: `node('a', 'prompt: x',
 * 'depends_on: [b]')` replaces the prompt in place and adds depends_on as line six.
 */
function node(id: string, ...lines: string[]): string {
  const keyOf = (line: string): string => line.slice(0, line.indexOf(':'));
  const defaults = [
    'type: agent_task',
    'agent: writer',
    'prompt: Write about {goal}',
    `output_path: docs/${id}.md`,
  ];
  const body = defaults.map((line) => lines.find((override) => keyOf(override) === keyOf(line)) ?? line);
  const extras = lines.filter((line) => !defaults.some((fallback) => keyOf(fallback) === keyOf(line)));
  return [`  - id: ${id}`, ...[...body, ...extras].map((line) => `    ${line}`)].join('\n') + '\n';
}

describe('checkGraphRules through parseGraph', () => {
  it.each<[string, string, Partial<ConfigIssue>[]]>([
    [
      'an agent_task without agent',
      node('a', 'type: agent_task').replace('    agent: writer\n', ''),
      [
        {
          path: 'nodes[0]',
          line: 5,
          column: 5,
          message:
            'agent_task node "a" has no agent; add agent: with the name of a configured agent, such as planner',
        },
      ],
    ],
    [
      'an agent_task without prompt',
      node('a').replace('    prompt: Write about {goal}\n', ''),
      [
        {
          path: 'nodes[0]',
          line: 5,
          column: 5,
          message: 'agent_task node "a" has no prompt; add prompt: with what the agent should write',
        },
      ],
    ],
    [
      'a write_file without content',
      '  - id: a\n    type: write_file\n    output_path: docs/a.md\n',
      [
        {
          path: 'nodes[0]',
          line: 5,
          column: 5,
          message:
            'write_file node "a" has no content; add content: with the document to write, such as content: "{plan.output}"',
        },
      ],
    ],
    [
      'an agent_task with content',
      node('a', 'content: x'),
      [
        {
          path: 'nodes[0].content',
          line: 10,
          column: 5,
          message:
            "content is only for write_file nodes (an agent_task node's document is the agent's reply); remove it, or change the node's type",
        },
      ],
    ],
    [
      'a write_file with agent and prompt',
      '  - id: a\n    type: write_file\n    agent: writer\n    prompt: p\n    content: c\n    output_path: docs/a.md\n',
      [
        {
          path: 'nodes[0].agent',
          line: 7,
          column: 5,
          message:
            "agent is only for agent_task nodes (a write_file node writes its content without an agent); remove it, or change the node's type",
        },
        { path: 'nodes[0].prompt', line: 8, column: 5 },
      ],
    ],
    [
      'a duplicate id',
      node('a') + node('a').replace('docs/a.md', 'docs/a2.md'),
      [
        {
          path: 'nodes[1].id',
          line: 10,
          column: 9,
          message: 'node id "a" is already used by nodes[0]; give each node its own id',
        },
      ],
    ],
    [
      'ids that differ only by case',
      node('plan') + node('Plan', 'output_path: docs/other.md'),
      [
        {
          path: 'nodes[1].id',
          line: 10,
          column: 9,
          message: 'node id "Plan" differs only by case from "plan" of nodes[0]; give each node its own id',
        },
      ],
    ],
    [
      'an unknown dependency close to a node id',
      node('plan') + node('b', 'depends_on: [plna]'),
      [
        {
          path: 'nodes[1].depends_on[0]',
          line: 15,
          column: 18,
          message: 'unknown node "plna" in depends_on; did you mean "plan"?',
        },
      ],
    ],
    [
      'an unknown dependency like no node id',
      node('plan') + node('b', 'depends_on: [plan, elsewhere]'),
      [
        {
          path: 'nodes[1].depends_on[1]',
          line: 15,
          column: 24,
          message: 'unknown node "elsewhere" in depends_on; the nodes are plan, b',
        },
      ],
    ],
    [
      'a dependency listed twice',
      node('a') + node('b', 'depends_on: [a, a]'),
      [
        {
          path: 'nodes[1].depends_on[1]',
          line: 15,
          column: 21,
          message: '"a" is listed twice in depends_on; keep one',
        },
      ],
    ],
    [
      'a node that depends on itself',
      node('a', 'depends_on: [a]'),
      [
        {
          path: 'nodes[0].depends_on[0]',
          line: 10,
          column: 18,
          message: 'dependency cycle: a -> a (the node depends on itself; remove "a" from its depends_on)',
        },
      ],
    ],
    [
      'a cycle of three nodes',
      node('a', 'depends_on: [c]') + node('b', 'depends_on: [a]') + node('c', 'depends_on: [b]'),
      [
        {
          path: 'nodes[0].depends_on[0]',
          line: 10,
          column: 18,
          message:
            'dependency cycle: a -> c -> b -> a (each node depends on the next; remove one of these depends_on entries)',
        },
      ],
    ],
    [
      'an unknown input, close to a declared one',
      node('a', 'prompt: Write about {gaol}'),
      [
        {
          path: 'nodes[0].prompt',
          line: 8,
          column: 25,
          message:
            'unknown template variable {gaol} (known here: {goal}, {run_id}); did you mean {goal}? Otherwise declare it under inputs:, or write {{gaol}} for literal braces',
        },
      ],
    ],
    [
      'a variable that names a node without .output',
      node('plan') + node('b', 'depends_on: [plan]', 'prompt: Use {plan}'),
      [
        {
          path: 'nodes[1].prompt',
          line: 13,
          column: 17,
          message:
            'unknown template variable {plan} (known here: {goal}, {run_id}); write {plan.output} for node "plan"\'s document, declare it under inputs:, or write {{plan}} for literal braces',
        },
      ],
    ],
    [
      "an unknown node's output",
      node('plan') + node('b', 'depends_on: [plan]', 'prompt: "{plna.output}"'),
      [
        {
          path: 'nodes[1].prompt',
          line: 13,
          column: 14,
          message: '{plna.output} names no node; did you mean {plan.output}?',
        },
      ],
    ],
    [
      "a node's own output",
      node('a', 'prompt: again {a.output}'),
      [
        {
          path: 'nodes[0].prompt',
          line: 8,
          column: 19,
          message: "{a.output} is this node's own document; use the documents of nodes it depends on",
        },
      ],
    ],
    [
      'the output of a node that is not a dependency',
      node('plan') + node('b', 'prompt: "{plan.output}"'),
      [
        {
          path: 'nodes[1].prompt',
          line: 13,
          column: 14,
          message:
            '{plan.output} uses the document of node "plan", which node "b" does not depend on; add "plan" to its depends_on so it runs first',
        },
      ],
    ],
    [
      'the output of a node that depends on this one',
      node('a', 'prompt: "{b.output}"') + node('b', 'depends_on: [a]'),
      [
        {
          path: 'nodes[0].prompt',
          line: 8,
          column: 14,
          message: expect.stringContaining('which node "a" does not depend on') as string,
        },
      ],
    ],
    [
      'an unknown variable in output_path',
      node('a', 'output_path: docs/{name}.md'),
      [
        {
          path: 'nodes[0].output_path',
          line: 9,
          column: 23,
          message: expect.stringMatching(/^unknown template variable \{name\}/) as string,
        },
      ],
    ],
    [
      'a node output in output_path',
      node('plan') + node('b', 'depends_on: [plan]', 'output_path: docs/{plan.output}.md'),
      [
        {
          path: 'nodes[1].output_path',
          line: 14,
          column: 18,
          message:
            'output_path "docs/{plan.output}.md" uses {plan.output}, a whole document; use inputs and {run_id} only',
        },
      ],
    ],
    [
      'an output_path outside docs/ and audits/',
      node('a', 'output_path: workspace/{run_id}.md'),
      [
        {
          path: 'nodes[0].output_path',
          line: 9,
          column: 18,
          message:
            'output_path "workspace/{run_id}.md" is not under docs/ or audits/; documents are written only there, so start it with docs/ (or audits/)',
        },
      ],
    ],
    [
      'an absolute output_path',
      node('a', 'output_path: /docs/a.md'),
      [{ path: 'nodes[0].output_path', message: expect.stringContaining('is absolute') as string }],
    ],
    [
      'an output_path with ..',
      node('a', 'output_path: docs/{goal}/../../a.md'),
      [
        {
          path: 'nodes[0].output_path',
          message: expect.stringContaining('contains a ".." segment') as string,
        },
      ],
    ],
    [
      'an output_path whose folder is a variable',
      node('a', 'output_path: "{goal}/a.md"'),
      [
        {
          path: 'nodes[0].output_path',
          message: expect.stringContaining('is not under docs/ or audits/') as string,
        },
      ],
    ],
    [
      'two nodes writing the same file',
      node('a') + node('b', 'output_path: ./docs//a.md'),
      [
        {
          path: 'nodes[1].output_path',
          line: 14,
          column: 18,
          message: 'node "b" writes docs/a.md, as node "a" does; give each node its own output_path',
        },
      ],
    ],
    [
      'two nodes writing the same file under different case',
      node('a') + node('b', 'output_path: docs/A.md'),
      [
        {
          path: 'nodes[1].output_path',
          message: 'node "b" writes docs/A.md, as node "a" does; give each node its own output_path',
        },
      ],
    ],
    [
      'two nodes with the same path template',
      node('a', 'output_path: docs/{run_id}.md') + node('b', 'output_path: docs/{run_id}.md'),
      [
        {
          path: 'nodes[1].output_path',
          message: 'node "b" writes docs/{run_id}.md, as node "a" does; give each node its own output_path',
        },
      ],
    ],
    [
      'a command node without commands',
      '  - id: s\n    type: command\n    output_path: docs/s.md\n',
      [
        {
          path: 'nodes[0]',
          message:
            'command node "s" has no commands; add commands: with the argv lists to run, such as [[node, --test, test]]',
        },
      ],
    ],
    [
      'a prompt and an agent on a command node',
      '  - id: s\n    type: command\n    agent: w\n    prompt: x\n    commands: [[node]]\n    output_path: docs/s.md\n',
      [
        {
          path: 'nodes[0].agent',
          message:
            "agent is only for agent_task nodes (a command node's document is the report of the commands it runs); remove it, or change the node's type",
        },
        {
          path: 'nodes[0].prompt',
          message:
            "prompt is only for agent_task nodes (a command node's document is the report of the commands it runs); remove it, or change the node's type",
        },
      ],
    ],
    [
      'commands and timeout_ms on an agent_task',
      node('a', 'commands: [[node]]', 'timeout_ms: 5'),
      [
        {
          path: 'nodes[0].commands',
          message:
            "commands is only for command nodes (an agent_task node's document is the agent's reply); remove it, or change the node's type",
        },
        {
          path: 'nodes[0].timeout_ms',
          message: expect.stringContaining('timeout_ms is only for command nodes') as string,
        },
      ],
    ],
    [
      'an empty commands list and an empty command',
      '  - id: s\n    type: command\n    commands: []\n    output_path: docs/s.md\n  - id: t\n    type: command\n    commands: [[]]\n    output_path: docs/t.md\n',
      [
        {
          path: 'nodes[0].commands',
          message: 'commands is empty; list at least one command, such as [[node, --test, test]]',
        },
        {
          path: 'nodes[1].commands[0]',
          message: 'a command is an empty list; name the program first, then its arguments',
        },
      ],
    ],
    [
      'a template variable in a command',
      '  - id: s\n    type: command\n    commands: [[node, "{goal}"]]\n    output_path: docs/s.md\n',
      [
        {
          path: 'nodes[0].commands[0][1]',
          message:
            'commands are literal argv lists, not templates; "{goal}" would be passed as written: remove the {variable}',
        },
      ],
    ],
    [
      'a misspelt contract type',
      node('a', 'contract: development_reslt'),
      [
        {
          path: 'nodes[0].contract',
          message:
            'unknown contract type "development_reslt"; did you mean "development_result"? (docs/contracts/)',
        },
      ],
    ],
    [
      'a contract on a write_file node',
      '  - id: w\n    type: write_file\n    content: x\n    contract: issues\n    output_path: docs/w.md\n',
      [
        {
          path: 'nodes[0].contract',
          message:
            "contract is only for agent_task and command nodes (a write_file node has no agent to ask for an artifact); remove it, or change the node's type",
        },
      ],
    ],
    [
      'a command node with another contract',
      '  - id: s\n    type: command\n    commands: [[node]]\n    contract: issues\n    output_path: docs/s.md\n',
      [
        {
          path: 'nodes[0].contract',
          message:
            'a command node submits smoke_test_result, not issues; write contract: smoke_test_result or remove the key',
        },
      ],
    ],
  ])('reports %s', (_name, nodes, expected) => {
    expect(issuesOf(nodes)).toEqual(expected.map((issue) => expect.objectContaining(issue) as ConfigIssue));
  });

  it.each<[string, string, string[]]>([
    [
      'run_id as an input',
      'inputs: [goal, run_id]',
      ['inputs[1]: run_id is set by the runtime for every run; name the input something else'],
    ],
    ['an input listed twice', 'inputs: [goal, goal]', ['inputs[1]: input "goal" is listed twice; keep one']],
  ])('reports %s', (_name, inputs, expected) => {
    try {
      parseGraph(HEADER.replace('inputs: [goal]', inputs) + node('a'), 'g.yaml');
    } catch (error) {
      expect((error as ConfigError).issues.map((issue) => `${issue.path}: ${issue.message}`)).toEqual(
        expected,
      );
      return;
    }
    throw new Error('expected a ConfigError');
  });

  it.each([
    ['an input and run_id', node('a', 'prompt: "{goal} in run {run_id}"')],
    ['a direct dependency', node('plan') + node('b', 'depends_on: [plan]', 'prompt: "{plan.output}"')],
    [
      'a transitive dependency',
      node('plan') +
        node('b', 'depends_on: [plan]') +
        node('c', 'depends_on: [b]', 'prompt: "{plan.output} {b.output}"'),
    ],
    ['escaped braces', node('a', 'prompt: "{{gaol}} {{a.output}}"')],
    ['code with braces', node('a', 'prompt: "function f() { return { x: 1 }; }"')],
    ['a variable in output_path', node('a', 'output_path: audits/{goal}_{run_id}.md')],
    ['the same template twice in one field', node('a', 'prompt: "{goal} {goal}"')],
    [
      'a diamond of dependencies',
      node('a') +
        node('b', 'depends_on: [a]') +
        node('c', 'depends_on: [a]') +
        node('d', 'depends_on: [b, c]'),
    ],
    ['a contract on an agent_task', node('a', 'contract: development_result')],
    [
      'a command node, its contract implied or written',
      "  - id: s\n    type: command\n    commands: [[node, -e, 'process.exit(0)']]\n    timeout_ms: 1000\n    output_path: docs/s.md\n" +
        '  - id: t\n    type: command\n    commands: [[node]]\n    contract: smoke_test_result\n    output_path: docs/t.md\n',
    ],
  ])('accepts %s', (_name, nodes) => {
    expect(issuesOf(nodes)).toEqual([]);
  });

  it('points at the variable, not at an escaped look-alike before it', () => {
    expect(issuesOf(node('a', 'prompt: "{{gaol}} then {gaol}"'))).toEqual([
      expect.objectContaining({ line: 8, column: 28 }),
    ]);
  });

  it('points at the variable inside a block scalar', () => {
    const nodes = node('a').replace(
      'prompt: Write about {goal}',
      'prompt: |\n      First line.\n      Second {gaol} line.',
    );
    expect(issuesOf(nodes)).toEqual([
      expect.objectContaining({ path: 'nodes[0].prompt', line: 10, column: 14 }),
    ]);
  });

  it('reports a repeated unknown variable once per field', () => {
    expect(issuesOf(node('a', 'prompt: "{x} {x}"', 'output_path: docs/{x}.md'))).toHaveLength(2);
  });

  it('reports a cycle together with the other problems of the graph', () => {
    const issues = issuesOf(
      node('a', 'depends_on: [b]', 'promt: x') + node('b', 'depends_on: [a]', 'type: agnet_task'),
    );
    expect(issues.map((issue) => issue.path)).toEqual([
      'nodes[0].depends_on[0]',
      'nodes[0].promt',
      'nodes[1].type',
    ]);
    expect(issues[0]?.message).toContain('dependency cycle: a -> b -> a');
  });
});

describe('checkGraphRules on values of any shape', () => {
  it.each([
    ['nothing', undefined],
    ['a list', [1, 2]],
    ['a string', 'graph'],
    ['nodes that are not a list', { nodes: 'x' }],
    ['nodes that are not mappings', { nodes: [1, 'x', null, []] }],
    [
      'fields of the wrong types',
      { inputs: 'goal', nodes: [{ id: 1, type: 2, depends_on: 'a', prompt: 3 }] },
    ],
  ])('finds nothing to report in %s', (_name, value) => {
    expect(checkGraphRules(value)).toEqual([]);
  });

  it('uses the fields that have the right type and ignores the rest', () => {
    expect(
      checkGraphRules({
        nodes: [
          { id: 'a', type: 'write_file', content: 7, depends_on: [3, 'zzz'], output_path: 'docs/a.md' },
        ],
      }),
    ).toEqual([
      { path: ['nodes', 0, 'depends_on', 1], message: 'unknown node "zzz" in depends_on; the nodes are a' },
    ]);
  });
});
