import type { GraphNodeType } from './graph-definition.js';

const NODE_TYPES: readonly GraphNodeType[] = ['agent_task', 'write_file', 'command'];

/** A node of a graph as read, whatever its shape: only fields of the right type are used. */
export interface NodeView {
  readonly index: number;
  readonly id: string | undefined;
  readonly type: GraphNodeType | undefined;
  readonly fields: Readonly<Record<string, unknown>>;
  readonly dependsOn: readonly string[];
}

/** The mappings of a graph's `nodes` list as {@link NodeView}s (other entries are the schema's to report). */
export function viewNodes(nodes: unknown): NodeView[] {
  if (!Array.isArray(nodes)) return [];
  return nodes.flatMap((raw: unknown, index): NodeView[] => {
    const fields = asRecord(raw);
    if (fields === undefined) return [];
    const type = NODE_TYPES.find((candidate) => candidate === fields.type);
    const id = typeof fields.id === 'string' ? fields.id : undefined;
    return [{ index, id, type, fields, dependsOn: stringsOf(fields.depends_on) }];
  });
}

/** How a message names a node: `node "plan"`, or `nodes[2]` when it has no id. */
export function nodeLabel(node: NodeView): string {
  return node.id === undefined ? `nodes[${String(node.index)}]` : `node "${node.id}"`;
}

/** The node ids for a message, at most 12 of them. */
export function listNodeIds(firstById: ReadonlyMap<string, NodeView>): string {
  const ids = [...firstById.keys()];
  const shown = ids.slice(0, 12).join(', ');
  return ids.length > 12 ? `${shown} and ${String(ids.length - 12)} more` : shown || 'none';
}

/** `value` when it is a mapping. */
export function asRecord(value: unknown): Readonly<Record<string, unknown>> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** The strings of `value` when it is a list. */
export function stringsOf(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}
