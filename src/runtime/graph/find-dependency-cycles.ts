/** A node as the cycle search sees it: its id and the ids it depends on. */
export interface DependencyNode {
  readonly id: string;
  readonly dependsOn: readonly string[];
}

/**
 * Every distinct cycle a depth-first walk in file order meets, each as the ids along `depends_on` edges
 * with the first repeated at the end (`['a', 'b', 'a']`: a depends on b, b on a); ids that name no node are
 * ignored, and each cycle starts at its node that comes first in `nodes`.
 */
export function findDependencyCycles(nodes: readonly DependencyNode[]): string[][] {
  const dependencies = new Map<string, readonly string[]>();
  const order = new Map<string, number>();
  for (const [index, node] of nodes.entries()) {
    if (dependencies.has(node.id)) continue;
    // Distinct edges: then each back edge closes its own cycle, and no cycle is found twice.
    dependencies.set(node.id, [...new Set(node.dependsOn)]);
    order.set(node.id, index);
  }
  const state = new Map<string, 'open' | 'closed'>();
  const cycles: string[][] = [];
  const record = (loop: readonly string[]): void => {
    const first = loop.reduce(
      (best, id, index) => ((order.get(id) ?? 0) < (order.get(loop[best] ?? '') ?? 0) ? index : best),
      0,
    );
    const rotated = [...loop.slice(first), ...loop.slice(0, first)];
    cycles.push([...rotated, rotated[0] ?? '']);
  };
  // Iterative, so a long chain of nodes cannot overflow the call stack.
  for (const root of dependencies.keys()) {
    if (state.has(root)) continue;
    const path: string[] = [root];
    const next: number[] = [0];
    state.set(root, 'open');
    while (path.length > 0) {
      const id = path[path.length - 1] ?? '';
      const position = next[next.length - 1] ?? 0;
      const dependsOn = dependencies.get(id) ?? [];
      if (position >= dependsOn.length) {
        state.set(id, 'closed');
        path.pop();
        next.pop();
        continue;
      }
      next[next.length - 1] = position + 1;
      const dependency = dependsOn[position] ?? '';
      if (!dependencies.has(dependency)) continue;
      const seenState = state.get(dependency);
      if (seenState === undefined) {
        state.set(dependency, 'open');
        path.push(dependency);
        next.push(0);
      } else if (seenState === 'open') {
        record(path.slice(path.indexOf(dependency)));
      }
    }
  }
  return cycles;
}
