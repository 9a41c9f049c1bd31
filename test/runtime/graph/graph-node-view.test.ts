import { describe, expect, it } from 'vitest';
import {
  listNodeIds,
  nodeLabel,
  viewNodes,
  type NodeView,
} from '../../../src/runtime/graph/graph-node-view.js';

describe('viewNodes', () => {
  it('keeps the mappings with their list index and the fields of the right type', () => {
    expect(
      viewNodes([
        'plan',
        { id: 'a', type: 'agent_task', depends_on: ['b', 3] },
        null,
        { id: 7, type: 'shell', depends_on: 'b' },
      ]),
    ).toEqual<NodeView[]>([
      {
        index: 1,
        id: 'a',
        type: 'agent_task',
        fields: { id: 'a', type: 'agent_task', depends_on: ['b', 3] },
        dependsOn: ['b'],
      },
      {
        index: 3,
        id: undefined,
        type: undefined,
        fields: { id: 7, type: 'shell', depends_on: 'b' },
        dependsOn: [],
      },
    ]);
  });

  it.each([undefined, 'nodes', { a: 1 }])('finds no nodes in %j', (value) => {
    expect(viewNodes(value)).toEqual([]);
  });
});

describe('nodeLabel and listNodeIds', () => {
  it('names a node by id, or by index without one', () => {
    const [named, anonymous] = viewNodes([{ id: 'plan' }, {}]);
    expect([nodeLabel(named!), nodeLabel(anonymous!)]).toEqual(['node "plan"', 'nodes[1]']);
  });

  it.each([
    [0, 'none'],
    [2, 'n0, n1'],
    [12, 'n0, n1, n2, n3, n4, n5, n6, n7, n8, n9, n10, n11'],
    [14, 'n0, n1, n2, n3, n4, n5, n6, n7, n8, n9, n10, n11 and 2 more'],
  ])('lists %i ids as %j', (count, expected) => {
    const views = viewNodes(Array.from({ length: count }, (_, index) => ({ id: `n${String(index)}` })));
    expect(listNodeIds(new Map(views.map((view) => [view.id ?? '', view])))).toBe(expected);
  });
});
