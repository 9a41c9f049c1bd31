import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import {
  BUILTIN_GRAPH_NAMES,
  BUILTIN_GRAPH_YAML,
  isBuiltinGraphName,
  type BuiltinGraphName,
} from '../../../src/runtime/graph/builtin-graphs.js';
import { findDependencyCycles } from '../../../src/runtime/graph/find-dependency-cycles.js';
import type { GraphDefinition } from '../../../src/runtime/graph/graph-definition.js';
import { contractSummary } from '../../../src/contracts/index.js';
import { ID_PATTERN as GRAPH_ID_PATTERN } from '../../../src/project/index.js';
import { parseGraph } from '../../../src/runtime/graph/load-graph.js';
import { resolveOutputPath } from '../../../src/runtime/graph/resolve-output-path.js';
import { parseTemplate, renderTemplate } from '../../../src/runtime/graph/template.js';

const DOCUMENTED_AGENTS = new Set(['planner', 'builder', 'reviewer', 'auditor', 'writer']);

function builtin(name: BuiltinGraphName): GraphDefinition {
  return parseGraph(BUILTIN_GRAPH_YAML[name], `builtin:${name}`);
}

/** Every node's output path with run_id and the inputs filled in. */
function outputPaths(graph: GraphDefinition, runId = 'run-1'): Record<string, string> {
  return Object.fromEntries(
    graph.nodes.map((node) => {
      const rendered = renderTemplate(parseTemplate(node.outputPath), (variable) =>
        variable.kind === 'name' && variable.name === 'run_id' ? runId : 'x',
      );
      const resolved = resolveOutputPath(rendered);
      return [node.id, resolved.ok ? resolved.path : `refused: ${resolved.message}`];
    }),
  );
}

describe('built-in graphs', () => {
  it.each(BUILTIN_GRAPH_NAMES)('%s loads, is acyclic and records its own mode', (name) => {
    const graph = builtin(name);
    expect(graph).toMatchObject({
      name,
      version: '1',
      // ralph is not one of the seed's three ingest modes.
      mode: name === 'ralph' ? 'unknown' : name,
      inputs: ['goal'],
      source: `builtin:${name}`,
    });
    expect(findDependencyCycles(graph.nodes)).toEqual([]);
  });

  it.each(BUILTIN_GRAPH_NAMES)(
    '%s has node ids usable as replay file names and documented agent names',
    (name) => {
      for (const node of builtin(name).nodes) {
        expect(node.id).toMatch(GRAPH_ID_PATTERN);
        expect(node.id).not.toMatch(/[.-]/);
        if (node.type === 'agent_task') expect(DOCUMENTED_AGENTS).toContain(node.agent);
      }
    },
  );

  it.each(BUILTIN_GRAPH_NAMES)('%s tells every writing agent the file= block form', (name) => {
    for (const node of builtin(name).nodes) {
      if (node.prompt === undefined) continue;
      // Either the agent writes files in the one accepted form, or it is told not to write any.
      expect(node.prompt).toMatch(/```python file=src\/app\.py|Do not write files/);
      expect(node.prompt).toContain('{goal}');
    }
  });

  it('single writes one document named after the run', () => {
    const graph = builtin('single');
    expect(graph.nodes.map((node) => [node.id, node.type, node.agent])).toEqual([
      ['single_task', 'agent_task', 'writer'],
    ]);
    expect(outputPaths(graph)).toEqual({ single_task: 'docs/single_run-1.md' });
  });

  it('self_critique writes a draft, two reviews in a reviews folder and a final, all under docs/', () => {
    const graph = builtin('self_critique');
    expect(graph.nodes.map((node) => [node.id, node.agent, node.dependsOn])).toEqual([
      ['draft', 'writer', []],
      ['review_1', 'reviewer', ['draft']],
      ['review_2', 'reviewer', ['draft']],
      ['final', 'writer', ['draft', 'review_1', 'review_2']],
    ]);
    expect(outputPaths(graph)).toEqual({
      draft: 'docs/self_critique/draft_run-1.md',
      review_1: 'docs/self_critique/reviews_run-1/review_1.md',
      review_2: 'docs/self_critique/reviews_run-1/review_2.md',
      final: 'docs/self_critique/final_run-1.md',
    });
  });

  it("team reproduces the seed's layout under docs/", () => {
    const graph = builtin('team');
    expect(graph.nodes.map((node) => [node.id, node.type, node.agent ?? null, node.dependsOn])).toEqual([
      ['plan', 'agent_task', 'planner', []],
      ['todo', 'write_file', null, ['plan']],
      ['pm', 'agent_task', 'planner', ['plan']],
      ['task_api', 'agent_task', 'builder', ['plan', 'pm']],
      ['task_readme', 'agent_task', 'builder', ['plan', 'pm']],
      ['audit', 'agent_task', 'auditor', ['task_api', 'task_readme']],
      ['final', 'agent_task', 'writer', ['todo', 'task_api', 'task_readme', 'audit']],
    ]);
    expect(outputPaths(graph)).toEqual({
      plan: 'docs/team_plan_run-1.md',
      todo: 'docs/TODO.md',
      pm: 'docs/ProjectManager.md',
      task_api: 'docs/tasks/api.md',
      task_readme: 'docs/tasks/readme.md',
      audit: 'docs/audits/security.md',
      final: 'docs/final.md',
    });
  });

  it("ralph runs seed 004's phases in order, each with its contract, under budgets", () => {
    const graph = builtin('ralph');
    expect(
      graph.nodes.map((node) => [node.id, node.type, node.agent ?? null, node.contract, node.dependsOn]),
    ).toEqual([
      ['product_spec', 'agent_task', 'planner', 'product_spec', []],
      ['plan', 'agent_task', 'planner', 'planning_analysis_decision', ['product_spec']],
      ['develop', 'agent_task', 'builder', 'development_result', ['plan']],
      ['review', 'agent_task', 'reviewer', 'issues', ['develop']],
      ['fix', 'agent_task', 'builder', 'fix_result', ['review']],
      ['smoke', 'command', null, 'smoke_test_result', ['fix']],
      ['commit', 'agent_task', 'writer', 'commit_message', ['smoke']],
    ]);
    expect(graph.budgets).toEqual({ max_minutes: 30, max_agent_calls: 20, max_fix_attempts: 2 });
    expect(graph.nodes.find((node) => node.id === 'smoke')?.commands).toEqual([
      ['node', '--test', 'workspace/test/'],
    ]);
    for (const node of graph.nodes) {
      if (node.prompt === undefined || node.contract === undefined) continue;
      // Every agent is told the one block form that submits its contract, and the fields of its type, the
      // summary's braces surviving the template (issue 24: no pointer at the package's docs/contracts/).
      expect(node.prompt).toContain(`\`\`\`json artifact=${node.contract}`);
      const rendered = renderTemplate(parseTemplate(node.prompt), (variable) => `<${variable.raw}>`);
      expect(rendered).toContain(contractSummary(node.contract));
      expect(rendered).not.toContain('docs/contracts');
    }
  });

  it('team writes TODO.md from the plan without an agent', () => {
    const todo = builtin('team').nodes.find((node) => node.id === 'todo');
    const rendered = renderTemplate(parseTemplate(todo?.content ?? ''), (variable) =>
      variable.kind === 'node_output' ? '<the plan>' : `<${variable.name}>`,
    );
    expect(rendered).toBe('# TODO\n\nGoal: <goal>\n\nRun: <run_id>\n\n<the plan>\n');
  });

  it('keeps every output path of every built-in graph under docs/ for any run id', () => {
    for (const name of BUILTIN_GRAPH_NAMES) {
      for (const path of Object.values(outputPaths(builtin(name), 'team-20260101T000000.000Z'))) {
        expect(path).toMatch(/^docs\/[^/]/);
      }
    }
  });

  it.each([
    ['single', true],
    ['self_critique', true],
    ['team', true],
    ['ralph', true],
    ['Team', false],
    ['self-critique', false],
    ['team.yaml', false],
    ['', false],
  ])('isBuiltinGraphName(%j) is %s', (ref, expected) => {
    expect(isBuiltinGraphName(ref)).toBe(expected);
  });
});

describe('the built-in graphs in the docs', () => {
  it('docs/cli.md names every built-in graph where it describes run GRAPH', async () => {
    const cli = await readFile(new URL('../../../docs/cli.md', import.meta.url), 'utf8');
    const paragraph = /`GRAPH` is a built-in graph \(([^)]*)\)/.exec(cli.replace(/\n/g, ' '))?.[1] ?? '';
    for (const name of BUILTIN_GRAPH_NAMES) expect(paragraph).toContain(`\`${name}\``);
  });
});
