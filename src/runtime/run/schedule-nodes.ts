import type { GraphDefinition, GraphNode } from '../graph/index.js';
import type { NodeStatus } from './run-types.js';

/** What the scheduler needs from a run. */
export interface ScheduleOptions {
  readonly graph: GraphDefinition;
  /** Most nodes running at once. */
  readonly concurrency: number;
  readonly statusOf: (nodeId: string) => NodeStatus;
  /** True once no new node may start (the run was aborted or cannot record its state). */
  readonly stopped: () => boolean;
  /** Runs one node to its end; must never reject. */
  readonly run: (node: GraphNode) => Promise<void>;
}

/**
 * Starts every pending node whose dependencies are all completed, in graph order, keeping at most
 * `concurrency` running; returns when nothing runs and nothing more can start.
 */
export async function scheduleNodes(options: ScheduleOptions): Promise<void> {
  const running = new Map<string, Promise<void>>();
  const launched = new Set<string>();
  const isReady = (node: GraphNode): boolean =>
    !launched.has(node.id) &&
    options.statusOf(node.id) === 'pending' &&
    node.dependsOn.every((id) => options.statusOf(id) === 'completed');

  const startReady = (): void => {
    if (options.stopped()) return;
    for (const node of options.graph.nodes) {
      if (running.size >= options.concurrency) return;
      if (!isReady(node)) continue;
      launched.add(node.id);
      running.set(
        node.id,
        options.run(node).finally(() => running.delete(node.id)),
      );
    }
  };

  startReady();
  while (running.size > 0) {
    await Promise.race(running.values());
    startReady();
  }
}
