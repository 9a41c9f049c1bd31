import { closestMatch, type YamlRuleIssue } from '../../config/index.js';
import { pathCollisionKey } from '../../workspace/index.js';
import { checkNodeTemplates } from './check-node-templates.js';
import { findDependencyCycles } from './find-dependency-cycles.js';
import type { GraphNodeType } from './graph-definition.js';
import { isId } from '../../project/index.js';
import { asRecord, listNodeIds, nodeLabel, stringsOf, viewNodes, type NodeView } from './graph-node-view.js';
import { checkOutputPathTemplate, resolveOutputPath } from './resolve-output-path.js';
import { parseTemplate, renderTemplate } from './template.js';

/** One broken graph rule, at a path into the graph file (zod issue style). */
export type GraphRuleIssue = YamlRuleIssue;

// Which node type each type-specific key belongs to; a node of the other type must not have it.
const KEY_OWNER: Readonly<Record<string, GraphNodeType>> = {
  agent: 'agent_task',
  prompt: 'agent_task',
  content: 'write_file',
  commands: 'command',
  timeout_ms: 'command',
};

// What each node type's document is, for the message that refuses another type's key.
const DOCUMENT_OF: Readonly<Record<GraphNodeType, string>> = {
  agent_task: "an agent_task node's document is the agent's reply",
  write_file: 'a write_file node writes its content without an agent',
  command: "a command node's document is the report of the commands it runs",
};

const REQUIRED_KEYS: Readonly<Record<GraphNodeType, readonly (readonly [key: string, advice: string])[]>> = {
  agent_task: [
    ['agent', 'add agent: with the name of a configured agent, such as planner'],
    ['prompt', 'add prompt: with what the agent should write'],
  ],
  write_file: [['content', 'add content: with the document to write, such as content: "{plan.output}"']],
  command: [['commands', 'add commands: with the argv lists to run, such as [[node, --test, test]]']],
};

/**
 * The rules of a graph that concern more than one value (required keys by node type, duplicate ids,
 * unknown dependencies, cycles, template variables, output paths), checked on the graph as read so they
 * are reported together with the schema's issues.
 */
export function checkGraphRules(value: unknown): GraphRuleIssue[] {
  const graph = asRecord(value);
  if (graph === undefined) return [];
  const nodes = viewNodes(graph.nodes);
  const firstById = new Map<string, NodeView>();
  for (const node of nodes) {
    if (node.id !== undefined && !firstById.has(node.id)) firstById.set(node.id, node);
  }
  return [
    ...checkInputs(graph.inputs),
    ...nodes.flatMap(checkNodeKeys),
    ...checkDuplicateIds(nodes),
    ...nodes.flatMap((node) => checkDependencies(node, firstById)),
    ...checkCycles(nodes, firstById),
    ...nodes.flatMap((node) => checkNodeTemplates(node, stringsOf(graph.inputs), firstById)),
    ...checkOutputPaths(nodes),
  ];
}

function checkInputs(raw: unknown): GraphRuleIssue[] {
  if (!Array.isArray(raw)) return [];
  const seen = new Set<string>();
  const issues: GraphRuleIssue[] = [];
  for (const [index, name] of raw.entries()) {
    if (typeof name !== 'string') continue;
    if (name === 'run_id') {
      issues.push({
        path: ['inputs', index],
        message: 'run_id is set by the runtime for every run; name the input something else',
      });
    } else if (seen.has(name)) {
      issues.push({ path: ['inputs', index], message: `input "${name}" is listed twice; keep one` });
    }
    seen.add(name);
  }
  return issues;
}

function checkNodeKeys(node: NodeView): GraphRuleIssue[] {
  if (node.type === undefined) return [];
  const issues: GraphRuleIssue[] = [];
  for (const [key, advice] of REQUIRED_KEYS[node.type]) {
    if (node.fields[key] === undefined) {
      issues.push({
        path: ['nodes', node.index],
        message: `${node.type} ${nodeLabel(node)} has no ${key}; ${advice}`,
      });
    }
  }
  for (const [key, owner] of Object.entries(KEY_OWNER)) {
    if (owner === node.type || !(key in node.fields)) continue;
    const why = DOCUMENT_OF[node.type];
    issues.push({
      path: ['nodes', node.index],
      message: `${key} is only for ${owner} nodes (${why}); remove it, or change the node's type`,
      params: { key },
    });
  }
  issues.push(...checkContractKey(node), ...checkCommandTemplates(node));
  return issues;
}

function checkContractKey(node: NodeView): GraphRuleIssue[] {
  const contract = node.fields.contract;
  if (contract === undefined) return [];
  if (node.type === 'write_file') {
    return [
      {
        path: ['nodes', node.index],
        message:
          "contract is only for agent_task and command nodes (a write_file node has no agent to ask for an artifact); remove it, or change the node's type",
        params: { key: 'contract' },
      },
    ];
  }
  if (node.type === 'command' && typeof contract === 'string' && contract !== 'smoke_test_result') {
    return [
      {
        path: ['nodes', node.index, 'contract'],
        message: `a command node submits smoke_test_result, not ${contract}; write contract: smoke_test_result or remove the key`,
      },
    ];
  }
  return [];
}

// Commands are argv lists run as written: a "{...}" in them is not a template, and would surprise its author.
function checkCommandTemplates(node: NodeView): GraphRuleIssue[] {
  if (node.type !== 'command' || !Array.isArray(node.fields.commands)) return [];
  const issues: GraphRuleIssue[] = [];
  for (const [index, command] of (node.fields.commands as unknown[]).entries()) {
    const args = stringsOf(command);
    const templated = args.findIndex((arg) => parseTemplate(arg).variables.length > 0);
    if (templated === -1) continue;
    issues.push({
      path: ['nodes', node.index, 'commands', index, templated],
      message: `commands are literal argv lists, not templates; "${args[templated] ?? ''}" would be passed as written: remove the {variable}`,
    });
  }
  return issues;
}

function checkDuplicateIds(nodes: readonly NodeView[]): GraphRuleIssue[] {
  // Ids name replay files and manifests, so ids differing only by case collide on macOS and Windows.
  const first = new Map<string, NodeView>();
  const issues: GraphRuleIssue[] = [];
  for (const node of nodes) {
    if (node.id === undefined) continue;
    const key = pathCollisionKey(node.id);
    const earlier = first.get(key);
    if (earlier === undefined) {
      first.set(key, node);
      continue;
    }
    const same =
      earlier.id === node.id ? 'is already used by' : `differs only by case from "${earlier.id ?? ''}" of`;
    issues.push({
      path: ['nodes', node.index, 'id'],
      message: `node id "${node.id}" ${same} nodes[${String(earlier.index)}]; give each node its own id`,
    });
  }
  return issues;
}

function checkDependencies(node: NodeView, firstById: ReadonlyMap<string, NodeView>): GraphRuleIssue[] {
  const issues: GraphRuleIssue[] = [];
  const listed = new Set<string>();
  const raw = Array.isArray(node.fields.depends_on) ? (node.fields.depends_on as unknown[]) : [];
  for (const [index, dependency] of raw.entries()) {
    // Entries that are no id at all are the schema's to report.
    if (typeof dependency !== 'string' || !isId(dependency)) continue;
    const path = ['nodes', node.index, 'depends_on', index];
    if (listed.has(dependency)) {
      issues.push({ path, message: `"${dependency}" is listed twice in depends_on; keep one` });
    } else if (!firstById.has(dependency)) {
      issues.push({
        path,
        message: `unknown node "${dependency}" in depends_on; ${suggestNode(dependency, firstById)}`,
      });
    }
    listed.add(dependency);
  }
  return issues;
}

function checkCycles(nodes: readonly NodeView[], firstById: ReadonlyMap<string, NodeView>): GraphRuleIssue[] {
  const known = [...firstById.values()].map((node) => ({ id: node.id ?? '', dependsOn: node.dependsOn }));
  return findDependencyCycles(known).map((cycle) => {
    const [from = '', to = ''] = cycle;
    const node = firstById.get(from) ?? nodes[0];
    const raw = Array.isArray(node?.fields.depends_on) ? (node.fields.depends_on as unknown[]) : [];
    const advice =
      cycle.length === 2
        ? `the node depends on itself; remove "${from}" from its depends_on`
        : 'each node depends on the next; remove one of these depends_on entries';
    return {
      path: ['nodes', node?.index ?? 0, 'depends_on', Math.max(raw.indexOf(to), 0)],
      message: `dependency cycle: ${cycle.join(' -> ')} (${advice})`,
    };
  });
}

function checkOutputPaths(nodes: readonly NodeView[]): GraphRuleIssue[] {
  const issues: GraphRuleIssue[] = [];
  const writers = new Map<string, NodeView>();
  for (const node of nodes) {
    const template = node.fields.output_path;
    if (typeof template !== 'string' || template === '') continue;
    const checked = checkOutputPathTemplate(template);
    if (!checked.ok) {
      issues.push({ path: ['nodes', node.index, 'output_path'], message: checked.message });
      continue;
    }
    // Variables kept as written: two nodes with the same path template write the same file in every run.
    const shape = resolveOutputPath(renderTemplate(parseTemplate(template), (variable) => variable.raw));
    if (!shape.ok) continue;
    const key = pathCollisionKey(shape.path);
    const earlier = writers.get(key);
    if (earlier === undefined) {
      writers.set(key, node);
      continue;
    }
    issues.push({
      path: ['nodes', node.index, 'output_path'],
      message: `${nodeLabel(node)} writes ${shape.path}, as ${nodeLabel(earlier)} does; give each node its own output_path`,
    });
  }
  return issues;
}

function suggestNode(id: string, firstById: ReadonlyMap<string, NodeView>): string {
  const suggestion = closestMatch(id, firstById.keys());
  return suggestion === undefined
    ? `the nodes are ${listNodeIds(firstById)}`
    : `did you mean "${suggestion}"?`;
}
