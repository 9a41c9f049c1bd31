import type { GraphDefinition } from './graph-definition.js';
import type { NodeId } from '../../project/index.js';

/** Ids of every node `nodeId` waits for, directly or through other nodes. */
export function ancestorsOf(graph: GraphDefinition, nodeId: NodeId): ReadonlySet<string> {
  const byId = new Map(graph.nodes.map((node) => [node.id, node]));
  const found = new Set<NodeId>();
  const stack = [...(byId.get(nodeId)?.dependsOn ?? [])];
  for (let id = stack.pop(); id !== undefined; id = stack.pop()) {
    if (found.has(id)) continue;
    found.add(id);
    stack.push(...(byId.get(id)?.dependsOn ?? []));
  }
  return found;
}

/** Ids of every node that waits, directly or through other nodes, for one of `nodeIds`, in graph order. */
export function descendantsOf(graph: GraphDefinition, nodeIds: Iterable<string>): readonly NodeId[] {
  const found = new Set<string>();
  const frontier = new Set(nodeIds);
  let grew = true;
  // Graph order is a topological order only if the file lists it so; repeat until nothing new is found.
  while (grew) {
    grew = false;
    for (const node of graph.nodes) {
      if (found.has(node.id)) continue;
      if (node.dependsOn.some((id) => frontier.has(id) || found.has(id))) {
        found.add(node.id);
        grew = true;
      }
    }
  }
  return graph.nodes.map((node) => node.id).filter((id) => found.has(id));
}
