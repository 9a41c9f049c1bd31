import { describe, expect, it } from 'vitest';
import { ConfigError, type ConfigIssue } from '../../../src/config/config-error.js';
import { ingestModeSchema } from '../../../src/ingest/ingest-manifest.js';
import { GRAPH_KEYS, GRAPH_MODES, MAX_GRAPH_NODES } from '../../../src/runtime/graph/graph-schema.js';
import { parseGraph } from '../../../src/runtime/graph/load-graph.js';
import { ID_RULE } from '../../../src/project/index.js';

function issuesOf(text: string): readonly ConfigIssue[] {
  try {
    parseGraph(text, 'g.yaml');
  } catch (error) {
    if (error instanceof ConfigError) return error.issues;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

const NODE = '  - id: a\n    type: write_file\n    content: x\n    output_path: docs/a.md\n';
const VALID = `name: g\nversion: "1"\ninputs: [goal]\nnodes:\n${NODE}`;

/** VALID with `from` replaced by `to` (the test fails if `from` is not there). */
function edit(from: string, to: string): string {
  if (!VALID.includes(from)) throw new Error(`not in the graph: ${from}`);
  return VALID.replace(from, to);
}

describe('graphSchema', () => {
  it('reads budgets, contracts and command nodes; a command node implies smoke_test_result', () => {
    const graph = parseGraph(
      'name: g\nversion: "1"\nbudgets: { max_minutes: 1.5, max_agent_calls: 4 }\nnodes:\n' +
        '  - id: a\n    type: agent_task\n    agent: w\n    prompt: p\n    contract: issues\n    output_path: docs/a.md\n' +
        '  - id: s\n    type: command\n    commands: [[node, -e, "0"]]\n    timeout_ms: 500\n    output_path: docs/s.md\n',
      'g.yaml',
    );
    expect(graph.budgets).toEqual({ max_minutes: 1.5, max_agent_calls: 4 });
    expect(graph.nodes[0]?.contract).toBe('issues');
    expect(graph.nodes[1]).toMatchObject({
      type: 'command',
      commands: [['node', '-e', '0']],
      timeoutMs: 500,
      contract: 'smoke_test_result',
    });
    expect(parseGraph(VALID, 'g.yaml').budgets).toBeUndefined();
  });

  it.each([
    ['max_minutes: 0', 'budgets.max_minutes: must be more than 0; write max_minutes: 30'],
    ['max_agent_calls: 0', 'budgets.max_agent_calls: must be 1 or more; write max_agent_calls: 20'],
    ['max_fix_attempts: -1', 'budgets.max_fix_attempts: must be 0 or more; write it as max_fix_attempts: 2'],
  ])('refuses budgets: { %s }', (budget, message) => {
    const issues = issuesOf(edit('nodes:\n', `budgets: { ${budget} }\nnodes:\n`));
    expect(issues.map((issue) => `${issue.path}: ${issue.message}`)).toEqual([message]);
  });

  it('accepts the valid graph the table edits', () => {
    expect(parseGraph(VALID, 'g.yaml').nodes).toHaveLength(1);
  });

  it.each<[string, string, [path: string, message: string][]]>([
    [
      'a list',
      '- name\n',
      [['', 'expected a mapping with name, version, inputs and nodes, got a list; see docs/runtime.md']],
    ],
    [
      'an empty document',
      '',
      [
        ['name', 'missing; add name: my_graph'],
        ['version', 'missing; add version: "1"'],
        ['nodes', 'missing; add nodes: with a list of nodes'],
      ],
    ],
    [
      'a misspelt top-level key',
      edit('inputs:', 'input:'),
      [
        [
          'input',
          'unknown key "input"; did you mean "inputs"? Rename it, or remove it (allowed here: name, version, description, inputs, mode, budgets, nodes)',
        ],
      ],
    ],
    [
      'an unknown top-level key',
      `${VALID}steps: []\n`,
      [
        [
          'steps',
          'unknown key "steps"; remove it (allowed here: name, version, description, inputs, mode, budgets, nodes)',
        ],
      ],
    ],
    [
      'a version written as a number',
      edit('"1"', '1.0'),
      [['version', 'expected a string, got 1; quote it, as in version: "1", so YAML keeps it as written']],
    ],
    ['an empty version', edit('"1"', '""'), [['version', 'the version is empty; write version: "1"']]],
    [
      'a name with a space',
      edit('name: g', 'name: my graph'),
      [['name', `"my graph" is not a valid graph name; ${ID_RULE}`]],
    ],
    [
      'a name of 129 characters',
      edit('name: g', `name: ${'g'.repeat(129)}`),
      [['name', 'is not a valid graph name']],
    ],
    [
      'a description that is a list',
      edit('name: g', 'name: g\ndescription: [a]'),
      [['description', 'expected text, got a list']],
    ],
    [
      'inputs that are not a list',
      edit('[goal]', 'goal'),
      [['inputs', 'expected a list, got "goal"; write it as inputs: [goal]']],
    ],
    [
      'an input name with a dash',
      edit('[goal]', '[my-goal]'),
      [['inputs[0]', '"my-goal" is not a valid input name']],
    ],
    [
      'a misspelt mode',
      edit('name: g', 'name: g\nmode: tem'),
      [['mode', 'unknown mode "tem"; did you mean "team"?']],
    ],
    [
      'an unknown mode',
      edit('name: g', 'name: g\nmode: solo'),
      [['mode', 'unknown mode "solo"; write one of single, self_critique, team, unknown']],
    ],
    [
      'no nodes',
      `name: g\nversion: "1"\nnodes: []\n`,
      [['nodes', 'the graph has no nodes; add at least one']],
    ],
    [
      'nodes that are a mapping',
      `name: g\nversion: "1"\nnodes:\n  a: 1\n`,
      [['nodes', 'expected a list of nodes, got a mapping; start each node with "- id:"']],
    ],
    [
      'a node that is a string',
      `name: g\nversion: "1"\nnodes:\n  - plan\n`,
      [['nodes[0]', 'expected a node (a mapping starting with "- id:"), got "plan"']],
    ],
    [
      'a node without id',
      edit('  - id: a\n    type', '  - type'),
      [['nodes[0].id', 'missing; add id: plan']],
    ],
    [
      'a node without type',
      edit('    type: write_file\n', ''),
      [['nodes[0].type', 'missing; add type: agent_task (or write_file, command)']],
    ],
    [
      'a node without output_path',
      edit('    output_path: docs/a.md\n', ''),
      [['nodes[0].output_path', 'missing; add output_path: docs/<name>.md']],
    ],
    [
      'an empty output_path',
      edit('docs/a.md', '""'),
      [['nodes[0].output_path', 'output_path is empty; name a file under docs/ or audits/']],
    ],
    [
      'a misspelt node type',
      edit('type: write_file', 'type: write_fle'),
      [['nodes[0].type', 'unknown node type "write_fle"; did you mean "write_file"?']],
    ],
    [
      'an unknown node type',
      edit('type: write_file', 'type: shell'),
      [['nodes[0].type', 'unknown node type "shell"; write one of agent_task, write_file']],
    ],
    [
      'a node id starting with a dash',
      edit('id: a', 'id: -a'),
      [['nodes[0].id', '"-a" is not a valid node id']],
    ],
    [
      'a node id with a slash',
      edit('id: a', 'id: tasks/api'),
      [['nodes[0].id', '"tasks/api" is not a valid node id']],
    ],
    [
      'a node id that is a number',
      edit('id: a', 'id: 7'),
      [['nodes[0].id', 'expected a node id, got 7; write it as text, such as id: plan']],
    ],
    [
      'an agent name with a space',
      `name: g\nversion: "1"\nnodes:\n  - id: a\n    type: agent_task\n    agent: my agent\n    prompt: p\n    output_path: docs/a.md\n`,
      [['nodes[0].agent', '"my agent" is not a valid agent name']],
    ],
    [
      'an empty prompt',
      `name: g\nversion: "1"\nnodes:\n  - id: a\n    type: agent_task\n    agent: w\n    prompt: ""\n    output_path: docs/a.md\n`,
      [['nodes[0].prompt', 'the prompt is empty; say what the agent should write']],
    ],
    [
      'content that is a number',
      edit('content: x', 'content: 42'),
      [['nodes[0].content', 'expected text, got 42']],
    ],
    [
      'depends_on that is a string',
      edit('content: x', 'content: x\n    depends_on: b'),
      [['nodes[0].depends_on', 'expected a list, got "b"; write it as depends_on: [plan]']],
    ],
    [
      'a depends_on entry that is no id',
      edit('content: x', 'content: x\n    depends_on: [a b]'),
      [['nodes[0].depends_on[0]', '"a b" is not a valid node id']],
    ],
    [
      'a misspelt node key',
      edit('content: x', 'content: x\n    dependson: []'),
      [
        [
          'nodes[0].dependson',
          'unknown key "dependson"; did you mean "depends_on"? Rename it, or remove it (allowed here: id, type, agent, prompt, content, commands, timeout_ms, contract, output_path, depends_on)',
        ],
      ],
    ],
  ])('explains %s', (_name, text, expected) => {
    const issues = issuesOf(text);
    expect(issues.map((issue) => issue.path)).toEqual(expected.map(([where]) => where));
    for (const [index, [, message]] of expected.entries()) expect(issues[index]?.message).toContain(message);
  });

  it('locates each shape problem at its value', () => {
    expect(issuesOf(edit('type: write_file', 'type: shell'))).toEqual([
      expect.objectContaining({ path: 'nodes[0].type', line: 6, column: 11 }),
    ]);
    expect(issuesOf(edit('    type: write_file\n', ''))).toEqual([
      expect.objectContaining({ path: 'nodes[0].type', line: 5, column: 5 }),
    ]);
  });

  it(`refuses more than ${String(MAX_GRAPH_NODES)} nodes`, () => {
    const nodes = Array.from(
      { length: MAX_GRAPH_NODES + 1 },
      (_, index) =>
        `  - id: n${String(index)}\n    type: write_file\n    content: x\n    output_path: docs/n${String(index)}.md\n`,
    ).join('');
    expect(issuesOf(`name: g\nversion: "1"\nnodes:\n${nodes}`).map((issue) => issue.message)).toEqual([
      `a graph may have at most ${String(MAX_GRAPH_NODES)} nodes; split it`,
    ]);
  });

  it('reports YAML syntax errors alone, with their position', () => {
    const issues = issuesOf('name: g\nnodes: [\n');
    expect(issues[0]).toMatchObject({ path: '' });
    expect(issues[0]?.message).toMatch(/^YAML syntax error \(\w+\): /);
    expect(issuesOf('name: g\nname: h\n')).toEqual([
      {
        path: '',
        line: 2,
        column: 1,
        message: 'key "name" appears twice in the same mapping; keep only one of them',
      },
    ]);
  });

  it('offers the modes the manifest knows', () => {
    expect([...GRAPH_MODES]).toEqual(ingestModeSchema.options);
  });

  it('lists the keys of the graph and of a node for suggestions', () => {
    expect(GRAPH_KEYS).toEqual({
      '': ['name', 'version', 'description', 'inputs', 'mode', 'budgets', 'nodes'],
      'nodes.*': [
        'id',
        'type',
        'agent',
        'prompt',
        'content',
        'commands',
        'timeout_ms',
        'contract',
        'output_path',
        'depends_on',
      ],
      budgets: ['max_minutes', 'max_agent_calls', 'max_fix_attempts'],
    });
  });
});

describe('graph ids that hold a secret', () => {
  it('refuses a node id holding a secret, without echoing it', () => {
    const token = 'ghp_' + 'EXtMlRz4AnKCdkZBwtNGaKx82cVGEIBLG9HR';
    const issues = issuesOf(edit('  - id: a\n', `  - id: a_${token}\n`));
    expect(issues.map((issue) => issue.message).join('\n')).toMatch(/holds what looks like a credential/);
    expect(JSON.stringify(issues)).not.toContain(token);
  });
});
