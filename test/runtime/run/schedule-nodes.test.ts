import { describe, expect, it } from 'vitest';
import { scheduleNodes } from '../../../src/runtime/run/schedule-nodes.js';
import type { NodeStatus } from '../../../src/runs/index.js';
import { defineGraph } from './fixtures/run-graph-fixtures.js';
import type { TestNode } from './fixtures/run-graph-fixtures.js';

const node = (id: string, after: readonly string[] = []): TestNode => ({
  id,
  type: 'write_file',
  content: id,
  outputPath: `docs/${id}.md`,
  after,
});

async function schedule(
  nodes: readonly TestNode[],
  options: { concurrency: number; before?: Record<string, NodeStatus>; fail?: readonly string[] },
): Promise<string[]> {
  const graph = defineGraph('s', nodes);
  const status = new Map<string, NodeStatus>(
    nodes.map((each) => [each.id, options.before?.[each.id] ?? 'pending']),
  );
  const started: string[] = [];
  await scheduleNodes({
    graph,
    concurrency: options.concurrency,
    statusOf: (id) => status.get(id) ?? 'pending',
    stopped: () => false,
    run: async (each) => {
      started.push(each.id);
      status.set(each.id, 'running');
      await new Promise((resolve) => setTimeout(resolve, 1));
      if (options.fail?.includes(each.id) === true) {
        status.set(each.id, 'failed');
        for (const other of nodes)
          if (other.after?.includes(each.id) === true) status.set(other.id, 'skipped');
      } else status.set(each.id, 'completed');
    },
  });
  return started;
}

describe('scheduleNodes', () => {
  it('starts ready nodes in graph order, not in the order they became ready', async () => {
    const nodes = [node('root'), node('z', ['root']), node('y', ['root']), node('x', ['root'])];
    expect(await schedule(nodes, { concurrency: 1 })).toEqual(['root', 'z', 'y', 'x']);
  });

  it('starts a node once its last dependency completes, counting nodes completed before', async () => {
    const nodes = [node('a'), node('b'), node('c', ['a', 'b']), node('d', ['c'])];
    expect(await schedule(nodes, { concurrency: 2, before: { a: 'completed' } })).toEqual(['b', 'c', 'd']);
  });

  it('never starts a node whose dependency failed', async () => {
    const nodes = [node('a'), node('b', ['a']), node('c')];
    expect(await schedule(nodes, { concurrency: 1, fail: ['a'] })).toEqual(['a', 'c']);
  });

  it('keeps at most `concurrency` nodes running', async () => {
    const nodes = Array.from({ length: 12 }, (_, i) => node(`n${String(i)}`, i === 0 ? [] : ['n0']));
    const graph = defineGraph('c', nodes);
    let running = 0;
    let most = 0;
    const status = new Map<string, NodeStatus>();
    await scheduleNodes({
      graph,
      concurrency: 3,
      statusOf: (id) => status.get(id) ?? 'pending',
      stopped: () => false,
      run: async (each) => {
        running += 1;
        most = Math.max(most, running);
        status.set(each.id, 'running');
        await new Promise((resolve) => setTimeout(resolve, 2));
        status.set(each.id, 'completed');
        running -= 1;
      },
    });
    expect(most).toBe(3);
    expect(status.size).toBe(12);
  });
});
