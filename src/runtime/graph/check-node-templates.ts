import { closestMatch } from '../../config/index.js';
import type { YamlRuleIssue as GraphRuleIssue } from '../../config/index.js';
import { listNodeIds, type NodeView } from './graph-node-view.js';
import { parseTemplate, type TemplateVariable } from './template.js';

const TEMPLATE_FIELDS = ['prompt', 'content', 'output_path'] as const;

/**
 * The template variables of one node that name nothing it may use: inputs and `{run_id}` are known, and
 * `{id.output}` must name a node it depends on, directly or through others; each issue points at the variable.
 */
export function checkNodeTemplates(
  node: NodeView,
  inputs: readonly string[],
  firstById: ReadonlyMap<string, NodeView>,
): GraphRuleIssue[] {
  if (node.id === undefined) return [];
  const issues: GraphRuleIssue[] = [];
  const known = new Set([...inputs, 'run_id']);
  const ancestors = dependenciesOf(node, firstById);
  for (const field of TEMPLATE_FIELDS) {
    const text = node.fields[field];
    if (typeof text !== 'string') continue;
    const reported = new Set<string>();
    for (const variable of parseTemplate(text).variables) {
      // A node's output in output_path is reported by checkOutputPathTemplate, as a path problem.
      if (reported.has(variable.raw) || (field === 'output_path' && variable.kind === 'node_output'))
        continue;
      reported.add(variable.raw);
      const problem = explainVariable(variable, node.id, known, ancestors, firstById);
      if (problem === undefined) continue;
      const occurrence = countOccurrences(text.slice(0, variable.offset), variable.raw);
      issues.push({
        path: ['nodes', node.index, field],
        message: problem,
        params: { token: variable.raw, occurrence },
      });
    }
  }
  return issues;
}

function explainVariable(
  variable: TemplateVariable,
  nodeId: string,
  known: ReadonlySet<string>,
  ancestors: ReadonlySet<string>,
  firstById: ReadonlyMap<string, NodeView>,
): string | undefined {
  if (variable.kind === 'name') {
    if (known.has(variable.name)) return undefined;
    const names = [...known].map((name) => `{${name}}`).join(', ');
    const suggestion = closestMatch(variable.name, known);
    const fix = firstById.has(variable.name)
      ? `write {${variable.name}.output} for node "${variable.name}"'s document, declare it under inputs:, or write {${variable.raw}} for literal braces`
      : `declare it under inputs:, or write {${variable.raw}} for literal braces`;
    const advice = suggestion === undefined ? fix : `did you mean {${suggestion}}? Otherwise ${fix}`;
    return `unknown template variable ${variable.raw} (known here: ${names}); ${advice}`;
  }
  if (variable.nodeId === nodeId) {
    return `${variable.raw} is this node's own document; use the documents of nodes it depends on`;
  }
  if (!firstById.has(variable.nodeId)) {
    const suggestion = closestMatch(variable.nodeId, firstById.keys());
    const advice =
      suggestion === undefined
        ? `the nodes are ${listNodeIds(firstById)}`
        : `did you mean {${suggestion}.output}?`;
    return `${variable.raw} names no node; ${advice}`;
  }
  if (ancestors.has(variable.nodeId)) return undefined;
  return `${variable.raw} uses the document of node "${variable.nodeId}", which node "${nodeId}" does not depend on; add "${variable.nodeId}" to its depends_on so it runs first`;
}

/** Every node `node` waits for, directly or through other nodes. */
function dependenciesOf(node: NodeView, firstById: ReadonlyMap<string, NodeView>): ReadonlySet<string> {
  const found = new Set<string>();
  const pending = [...node.dependsOn];
  for (let id = pending.pop(); id !== undefined; id = pending.pop()) {
    if (found.has(id)) continue;
    found.add(id);
    pending.push(...(firstById.get(id)?.dependsOn ?? []));
  }
  return found;
}

function countOccurrences(text: string, token: string): number {
  let count = 0;
  for (let index = text.indexOf(token); index !== -1; index = text.indexOf(token, index + token.length))
    count += 1;
  return count;
}
