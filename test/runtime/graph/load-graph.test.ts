import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseNodeId } from '../../../src/project/index.js';
import { ConfigError } from '../../../src/config/config-error.js';
import { BUILTIN_GRAPH_YAML } from '../../../src/runtime/graph/builtin-graphs.js';
import type { GraphDefinition } from '../../../src/runtime/graph/graph-definition.js';
import { loadGraph, MAX_GRAPH_FILE_BYTES, parseGraph } from '../../../src/runtime/graph/load-graph.js';
import { tempProject } from '../../helpers/temp-project.js';

const EXAMPLE = path.resolve(import.meta.dirname, '../../../fixtures/graphs/release-notes.yaml');

/** The ConfigError `action` rejects with (the test fails if it resolves). */
async function rejection(action: () => Promise<unknown>): Promise<ConfigError> {
  try {
    await action();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

function configErrorOf(parse: () => unknown): ConfigError {
  try {
    parse();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

// A fresh text each time, so no test sees another's cached definition.
let counter = 0;
function uniqueGraph(extra = ''): string {
  counter += 1;
  return `# case ${String(counter)}
name: g
version: "1"
inputs: [goal]
nodes:
  - id: a
    type: agent_task
    agent: writer
    prompt: "{goal}"
    output_path: docs/a_{run_id}.md
${extra}`;
}

describe('loadGraph', () => {
  it('loads the example graph file into a complete definition', async () => {
    const text = await readFile(EXAMPLE, 'utf8');
    const graph = await loadGraph(path.relative(process.cwd(), EXAMPLE), { cwd: process.cwd() });
    expect(graph).toEqual<GraphDefinition>({
      name: 'release_notes',
      version: '1',
      description: 'Draft release notes from a list of changes, check them, publish them.',
      inputs: ['changes', 'version'],
      mode: 'unknown',
      nodes: [
        {
          id: parseNodeId('draft'),
          type: 'agent_task',
          dependsOn: [],
          agent: 'writer',
          prompt: expect.stringContaining('Write release notes for version {version}') as string,
          outputPath: 'docs/release/{version}/draft.md',
        },
        {
          id: parseNodeId('check'),
          type: 'agent_task',
          dependsOn: [parseNodeId('draft')],
          agent: 'reviewer',
          prompt: expect.stringContaining('{draft.output}') as string,
          outputPath: 'audits/release_{version}_{run_id}.md',
        },
        {
          id: parseNodeId('publish'),
          type: 'write_file',
          dependsOn: [parseNodeId('check')],
          content: expect.stringMatching(/^# Release \{version\}\n/) as string,
          outputPath: 'docs/release/{version}/NOTES.md',
        },
      ],
      hash: createHash('sha256').update(text).digest('hex'),
      source: EXAMPLE,
    });
  });

  it('loads the example graph of docs/runtime.md', async () => {
    const docs = await readFile(path.resolve(import.meta.dirname, '../../../docs/runtime.md'), 'utf8');
    const example = /## Graph format[\s\S]*?```yaml\n([\s\S]*?)```/.exec(docs)?.[1] ?? '';
    expect(parseGraph(example, 'docs/runtime.md').nodes.map((node) => node.id)).toEqual([
      'draft',
      'check',
      'publish',
    ]);
  });

  it('resolves a relative path against cwd and records the absolute path as the source', async () => {
    const dir = await tempProject({ 'graphs/mine.yaml': uniqueGraph() });
    const graph = await loadGraph('graphs/mine.yaml', { cwd: dir });
    expect(graph.source).toBe(path.join(dir, 'graphs', 'mine.yaml'));
  });

  it.each(['single', 'self_critique', 'team'] as const)(
    'loads the built-in graph %s by name',
    async (name) => {
      const graph = await loadGraph(name, { cwd: '/nonexistent' });
      expect(graph.name).toBe(name);
      expect(graph.source).toBe(`builtin:${name}`);
      expect(graph.hash).toBe(createHash('sha256').update(BUILTIN_GRAPH_YAML[name]).digest('hex'));
    },
  );

  it('prefers the built-in graph over a file of the same name; ./name reads the file', async () => {
    const dir = await tempProject({ team: uniqueGraph() });
    expect((await loadGraph('team', { cwd: dir })).source).toBe('builtin:team');
    expect((await loadGraph('./team', { cwd: dir })).source).toBe(path.join(dir, 'team'));
  });

  it('reports a missing file as a ConfigError listing the built-in graphs', async () => {
    const dir = await tempProject();
    const error = await rejection(() => loadGraph('nope.yaml', { cwd: dir }));
    expect(error.source).toBe(path.join(dir, 'nope.yaml'));
    expect(error.issues).toEqual([
      {
        path: '',
        message:
          "no such graph file; give a YAML file's path or a built-in graph: single, self_critique, team, ralph",
      },
    ]);
  });

  it('suggests the built-in graph a missing name most likely meant', async () => {
    const dir = await tempProject();
    const error = await rejection(() => loadGraph('self-critique', { cwd: dir }));
    expect(error.issues[0]?.message).toContain('did you mean the built-in graph "self_critique"?');
  });

  it('reports a directory, a file over the size limit and a file that is not UTF-8 as ConfigErrors', async () => {
    const dir = await tempProject({
      'big.yaml': `# ${'x'.repeat(MAX_GRAPH_FILE_BYTES)}\n`,
      'latin1.yaml': new Uint8Array([0x6e, 0x61, 0x6d, 0x65, 0x3a, 0x20, 0xe9, 0x0a]),
    });
    await mkdir(path.join(dir, 'folder.yaml'));
    await expect(loadGraph('folder.yaml', { cwd: dir })).rejects.toThrow('is a directory');
    await expect(loadGraph('big.yaml', { cwd: dir })).rejects.toThrow(
      'config and definition files are limited to 1048576 bytes',
    );
    await expect(loadGraph('latin1.yaml', { cwd: dir })).rejects.toThrow('is not valid UTF-8');
  });

  it('names the file, line and column of a problem in the file', async () => {
    const dir = await tempProject({
      'bad.yaml': uniqueGraph().replace('prompt: "{goal}"', 'prompt: "{gaol}"'),
    });
    const error = await rejection(() => loadGraph('bad.yaml', { cwd: dir }));
    expect(error.message).toContain(
      `${path.join(dir, 'bad.yaml')}:9:14: nodes[0].prompt: unknown template variable {gaol}`,
    );
  });

  it('quotes a syntax error of the file as one redacted line, never its later lines', async () => {
    const token = 'ghp_GraphSyntaxSecretGraphSyntaxSecretGraph1';
    const dir = await tempProject({ 'bad.yaml': `- a\n|\n  ${token}\n  zq-later-line\n` });
    const error = await rejection(() => loadGraph('bad.yaml', { cwd: dir }));
    expect(error.message).toContain('YAML syntax error (UNEXPECTED_TOKEN)');
    expect(error.message).not.toContain(token);
    expect(error.message).not.toContain('zq-later-line');
  });
});

describe('parseGraph', () => {
  it('fills in the optional keys', () => {
    const graph = parseGraph(
      'name: g\nversion: "2"\nnodes:\n  - id: a\n    type: write_file\n    content: hi\n    output_path: docs/a.md\n',
      'g.yaml',
    );
    expect(graph).toMatchObject({ description: '', inputs: [], mode: 'unknown' });
    expect(graph.nodes[0]).toEqual({
      id: 'a',
      type: 'write_file',
      dependsOn: [],
      content: 'hi',
      outputPath: 'docs/a.md',
    });
  });

  it.each([
    ['the mode key', 'name: g\nmode: team', 'team'],
    ['the name when it is a mode', 'name: self_critique', 'self_critique'],
    ['the mode key over the name', 'name: single\nmode: unknown', 'unknown'],
    ['unknown otherwise', 'name: g', 'unknown'],
  ])('takes the mode from %s', (_name, header, mode) => {
    const text = `${header}\nversion: "1"\nnodes:\n  - id: a\n    type: write_file\n    content: x\n    output_path: docs/a.md\n`;
    expect(parseGraph(text, 'g.yaml').mode).toBe(mode);
  });

  it('returns the same frozen object for the same text and source', () => {
    const text = uniqueGraph();
    const first = parseGraph(text, 'g.yaml');
    expect(parseGraph(text, 'g.yaml')).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(Object.isFrozen(first.nodes)).toBe(true);
    expect(Object.isFrozen(first.nodes[0])).toBe(true);
    expect(Object.isFrozen(first.inputs)).toBe(true);
  });

  it('parses a changed text again, and keeps the same text from another source apart', () => {
    const text = uniqueGraph();
    const first = parseGraph(text, 'g.yaml');
    const changed = parseGraph(`${text}\n# edited\n`, 'g.yaml');
    expect(changed).not.toBe(first);
    expect(changed.hash).not.toBe(first.hash);
    const elsewhere = parseGraph(text, 'other.yaml');
    expect(elsewhere).not.toBe(first);
    expect(elsewhere).toEqual({ ...first, source: 'other.yaml' });
    expect(elsewhere.nodes).toBe(first.nodes);
  });

  it('returns the cached definition when a file is loaded twice, and a new one once it changes', async () => {
    const dir = await tempProject({ 'g.yaml': uniqueGraph() });
    const first = await loadGraph('g.yaml', { cwd: dir });
    expect(await loadGraph('g.yaml', { cwd: dir })).toBe(first);
    await writeFile(path.join(dir, 'g.yaml'), uniqueGraph());
    expect(await loadGraph('g.yaml', { cwd: dir })).not.toBe(first);
  });

  it('does not cache a failure: the same bad text fails again', () => {
    const text = 'name: g\n';
    expect(() => parseGraph(text, 'g.yaml')).toThrow(ConfigError);
    expect(() => parseGraph(text, 'g.yaml')).toThrow(ConfigError);
  });

  it('reports the four errors of a graph together, each at its line and column', () => {
    const text = [
      'name: four', //                                   1
      'version: "1"', //                                 2
      'inputs: [goal]', //                               3
      'nodes:', //                                       4
      '  - id: plan', //                                 5
      '    type: agent_task', //                         6
      '    agent: planner', //                           7
      '    prompt: Plan {goal}', //                      8
      '    output_path: docs/plan.md', //                9
      '    depends_on: [final]', //                      10 cycle
      '  - id: final', //                                11
      '    type: agent_task', //                         12
      '    agent: writer', //                            13
      '    prompt: "Sum up {plan.output} for {gaol}"', // 14 unknown variable
      '    output_path: docs/final.md', //               15
      '    depends_on: [plan]', //                       16
      '    retries: 3', //                               17 unknown key
      '  - id: plan', //                                 18 duplicate id
      '    type: write_file', //                         19
      '    content: x', //                               20
      '    output_path: docs/plan2.md', //               21
      '',
    ].join('\n');
    const error = configErrorOf(() => parseGraph(text, 'four.yaml'));
    expect(error.message).toBe(
      [
        'invalid configuration (4 problems):',
        '  four.yaml:10:18: nodes[0].depends_on[0]: dependency cycle: plan -> final -> plan (each node depends on the next; remove one of these depends_on entries)',
        '  four.yaml:14:39: nodes[1].prompt: unknown template variable {gaol} (known here: {goal}, {run_id}); did you mean {goal}? Otherwise declare it under inputs:, or write {{gaol}} for literal braces',
        '  four.yaml:17:5: nodes[1].retries: unknown key "retries"; remove it (allowed here: id, type, agent, prompt, content, commands, timeout_ms, contract, output_path, depends_on)',
        '  four.yaml:18:9: nodes[2].id: node id "plan" is already used by nodes[0]; give each node its own id',
      ].join('\n'),
    );
  });

  it('reports problems of five kinds together, each at its line and column', () => {
    const text = [
      'name: four', //                      1
      'version: "1"', //                    2
      'inputs: [goal]', //                  3
      'nodes:', //                          4
      '  - id: plan', //                    5
      '    type: agent_task', //            6
      '    agent: planner', //              7
      '    promt: Plan {goal}', //          8  unknown key (did you mean prompt) + missing prompt at 5:5
      '    output_path: docs/plan.md', //   9
      '  - id: todo', //                    10
      '    type: write_file', //            11
      '    depends_on: [plna]', //          12 unknown dependency
      '    content: "{plan.output} for {gaol}"', // 13 unknown template variable at the variable
      '    output_path: ../TODO.md', //     14 output path outside
      '',
    ].join('\n');
    const error = configErrorOf(() => parseGraph(text, 'four.yaml'));
    expect(error.issues.map(({ path: where, line, column }) => ({ where, line, column }))).toEqual([
      { where: 'nodes[0]', line: 5, column: 5 },
      { where: 'nodes[0].promt', line: 8, column: 5 },
      { where: 'nodes[1].depends_on[0]', line: 12, column: 18 },
      { where: 'nodes[1].content', line: 13, column: 15 },
      { where: 'nodes[1].content', line: 13, column: 33 },
      { where: 'nodes[1].output_path', line: 14, column: 18 },
    ]);
    expect(error.message.split('\n')).toEqual([
      'invalid configuration (6 problems):',
      '  four.yaml:5:5: nodes[0]: agent_task node "plan" has no prompt; add prompt: with what the agent should write',
      '  four.yaml:8:5: nodes[0].promt: unknown key "promt"; did you mean "prompt"? Rename it, or remove it (allowed here: id, type, agent, prompt, content, commands, timeout_ms, contract, output_path, depends_on)',
      '  four.yaml:12:18: nodes[1].depends_on[0]: unknown node "plna" in depends_on; did you mean "plan"?',
      '  four.yaml:13:15: nodes[1].content: {plan.output} uses the document of node "plan", which node "todo" does not depend on; add "plan" to its depends_on so it runs first',
      '  four.yaml:13:33: nodes[1].content: unknown template variable {gaol} (known here: {goal}, {run_id}); did you mean {goal}? Otherwise declare it under inputs:, or write {{gaol}} for literal braces',
      '  four.yaml:14:18: nodes[1].output_path: output_path "../TODO.md" contains a ".." segment; write the path under docs/ or audits/ without ".."',
    ]);
  });
});
