import type { GraphDefinition, GraphNode } from '../graph/index.js';
import type { NodeStatus } from '../../runs/index.js';

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
 * `concurrency` running; returns when nothing runs and nothing more can start. Each node's dependencies are
 * counted down as they complete, so a finished node costs its own dependents, not a scan of the graph.
 */
export async function scheduleNodes(options: ScheduleOptions): Promise<void> {
  const { graph } = options;
  const position = new Map<string, number>();
  const dependents = new Map<string, GraphNode[]>();
  const waitingOn = new Map<string, number>();
  const ready = new ReadyQueue((node) => position.get(node.id) ?? 0);
  graph.nodes.forEach((node, index) => {
    position.set(node.id, index);
    let open = 0;
    for (const id of node.dependsOn) {
      if (options.statusOf(id) !== 'completed') open += 1;
      const list = dependents.get(id);
      if (list === undefined) dependents.set(id, [node]);
      else list.push(node);
    }
    waitingOn.set(node.id, open);
    if (open === 0 && options.statusOf(node.id) === 'pending') ready.push(node);
  });

  const running = new Map<string, Promise<void>>();
  const finished = (node: GraphNode): void => {
    running.delete(node.id);
    if (options.statusOf(node.id) !== 'completed') return;
    for (const dependent of dependents.get(node.id) ?? []) {
      const open = (waitingOn.get(dependent.id) ?? 0) - 1;
      waitingOn.set(dependent.id, open);
      if (open === 0 && options.statusOf(dependent.id) === 'pending') ready.push(dependent);
    }
  };
  const startReady = (): void => {
    if (options.stopped()) return;
    while (running.size < options.concurrency) {
      const node = ready.pop();
      if (node === undefined) return;
      // Skipped (a failed dependency elsewhere) since it became ready: it never starts.
      if (options.statusOf(node.id) !== 'pending') continue;
      running.set(
        node.id,
        options.run(node).finally(() => {
          finished(node);
        }),
      );
    }
  };

  startReady();
  while (running.size > 0) {
    await Promise.race(running.values());
    startReady();
  }
}

/** Ready nodes, the first in graph order on top (a binary min-heap over the node's position). */
class ReadyQueue {
  private readonly heap: GraphNode[] = [];

  constructor(private readonly rank: (node: GraphNode) => number) {}

  push(node: GraphNode): void {
    const { heap } = this;
    heap.push(node);
    let child = heap.length - 1;
    while (child > 0) {
      const parent = (child - 1) >> 1;
      if (this.before(heap[parent], heap[child])) break;
      this.swap(parent, child);
      child = parent;
    }
  }

  pop(): GraphNode | undefined {
    const { heap } = this;
    const top = heap[0];
    const last = heap.pop();
    if (heap.length === 0 || last === undefined) return top;
    heap[0] = last;
    let parent = 0;
    for (;;) {
      const left = parent * 2 + 1;
      const smallest = left + 1 < heap.length && this.before(heap[left + 1], heap[left]) ? left + 1 : left;
      if (smallest >= heap.length || this.before(heap[parent], heap[smallest])) break;
      this.swap(parent, smallest);
      parent = smallest;
    }
    return top;
  }

  private before(a: GraphNode | undefined, b: GraphNode | undefined): boolean {
    return a !== undefined && b !== undefined && this.rank(a) <= this.rank(b);
  }

  private swap(i: number, j: number): void {
    const a = this.heap[i];
    const b = this.heap[j];
    if (a === undefined || b === undefined) return;
    this.heap[i] = b;
    this.heap[j] = a;
  }
}
