import type { GraphDefinition } from '../graph/index.js';
import { descendantsOf, resolveOutputPath } from '../graph/index.js';
import type { NodeState, RunState } from '../../runs/index.js';
import { sha256Hex } from '../../project/index.js';
import type { NodeId } from '../../project/index.js';
import { openConfinedRoot } from '../../workspace/index.js';
import type { ConfinedRoot } from '../../workspace/index.js';

/** Why a node that state.json records as completed runs again. */
export type RerunReason = 'document_missing' | 'document_changed' | 'dependency_rerun';

/** A completed node that runs again, and why. */
export interface Rerun {
  readonly nodeId: NodeId;
  readonly reason: RerunReason;
  readonly outputPath: string;
}

/** Where a run (re)starts: every node's state, the kept documents' texts and the completed nodes that rerun. */
export interface StartPlan {
  readonly nodes: Map<string, NodeState>;
  /** Text of each kept completed node's document, for `{node_id.output}`. */
  readonly outputs: Map<string, string>;
  readonly reruns: readonly Rerun[];
}

/** The plan of a fresh run: every node pending. */
export function planNewRun(graph: GraphDefinition): StartPlan {
  const nodes = new Map<string, NodeState>(
    graph.nodes.map((node) => [node.id, { status: 'pending', attempts: 0 }]),
  );
  return { nodes, outputs: new Map(), reruns: [] };
}

/**
 * The plan of a resume: completed nodes whose document is still on disk with its recorded sha256 are kept
 * (and their text read back); every other node, and every completed node downstream of one that reruns,
 * goes back to pending with its attempts kept. A recorded `output_path` is state.json's word, which a hostile
 * hand may have edited: one a node could not have written (outside `docs/` and `audits/`, `..`, absolute) is
 * never read, and a document is read as the writer walks (no symlink followed, no hard link), so a file outside
 * the project never becomes a node's output, whatever its hash.
 */
export async function planResume(
  projectDir: string,
  graph: GraphDefinition,
  state: RunState,
): Promise<StartPlan> {
  const nodes = new Map<string, NodeState>();
  const outputs = new Map<string, string>();
  const reruns: Rerun[] = [];
  const root = await openConfinedRoot(projectDir);
  try {
    await keepOrRerun(root, graph, state, { nodes, outputs, reruns });
  } finally {
    await root.close();
  }
  // A document computed from an output that is about to change would be stale: its node runs again too.
  const rerunIds = new Set(reruns.map((rerun) => rerun.nodeId));
  for (const id of descendantsOf(graph, rerunIds)) {
    const recorded = nodes.get(id);
    if (recorded?.status === 'completed' && !rerunIds.has(id)) {
      reruns.push({ nodeId: id, reason: 'dependency_rerun', outputPath: recorded.output_path ?? '' });
    }
  }
  for (const rerun of reruns) {
    outputs.delete(rerun.nodeId);
    nodes.set(rerun.nodeId, { status: 'pending', attempts: nodes.get(rerun.nodeId)?.attempts ?? 0 });
  }
  const order = new Map(graph.nodes.map((node, index) => [node.id, index]));
  reruns.sort((a, b) => (order.get(a.nodeId) ?? 0) - (order.get(b.nodeId) ?? 0));
  return { nodes, outputs, reruns };
}

/** Sorts the completed nodes into those kept (their text in `plan.outputs`) and those whose document is gone or changed. */
async function keepOrRerun(
  root: ConfinedRoot,
  graph: GraphDefinition,
  state: RunState,
  plan: { nodes: Map<string, NodeState>; outputs: Map<string, string>; reruns: Rerun[] },
): Promise<void> {
  const { nodes, outputs, reruns } = plan;
  for (const node of graph.nodes) {
    const recorded = state.nodes[node.id];
    if (recorded?.status !== 'completed') {
      nodes.set(node.id, { status: 'pending', attempts: recorded?.attempts ?? 0 });
      continue;
    }
    const outputPath = recorded.output_path ?? '';
    const document = await readDocument(root, outputPath);
    if (document === null) {
      reruns.push({ nodeId: node.id, reason: 'document_missing', outputPath });
    } else if (sha256Hex(document) !== recorded.output_sha256) {
      reruns.push({ nodeId: node.id, reason: 'document_changed', outputPath });
    } else {
      outputs.set(node.id, new TextDecoder().decode(document));
    }
    nodes.set(node.id, recorded);
  }
}

/** The document at `outputPath`, or null when there is none a node could have written there. */
async function readDocument(root: ConfinedRoot, outputPath: string): Promise<Uint8Array | null> {
  const rule = resolveOutputPath(outputPath);
  if (!rule.ok || rule.path !== outputPath) return null;
  const opening = await root.openFile(outputPath).catch(() => undefined);
  if (opening?.kind !== 'opened') return null;
  try {
    return new Uint8Array(await opening.handle.readFile());
  } catch {
    return null;
  } finally {
    await opening.handle.close();
  }
}
