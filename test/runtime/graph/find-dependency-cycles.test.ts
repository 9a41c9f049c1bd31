import { describe, expect, it } from 'vitest';
import {
  findDependencyCycles,
  type DependencyNode,
} from '../../../src/runtime/graph/find-dependency-cycles.js';

/** `'a:b,c b:'` -> nodes a (depends on b and c) and b. */
function graph(spec: string): DependencyNode[] {
  return spec
    .split(' ')
    .filter((entry) => entry !== '')
    .map((entry) => {
      const [id = '', dependsOn = ''] = entry.split(':');
      return { id, dependsOn: dependsOn === '' ? [] : dependsOn.split(',') };
    });
}

describe('findDependencyCycles', () => {
  it.each([
    ['no nodes', ''],
    ['one node', 'a:'],
    ['a chain', 'a: b:a c:b'],
    ['a diamond', 'a: b:a c:a d:b,c'],
    ['an unknown dependency', 'a:zzz'],
    [
      'the team graph',
      'plan: todo:plan pm:plan api:plan,pm readme:plan,pm audit:api,readme final:todo,api,readme,audit',
    ],
  ])('finds none in %s', (_name, spec) => {
    expect(findDependencyCycles(graph(spec))).toEqual([]);
  });

  it.each([
    ['a self-dependency', 'a:a', [['a', 'a']]],
    ['two nodes', 'a:b b:a', [['a', 'b', 'a']]],
    ['three nodes, listed out of order', 'c:a a:b b:c', [['c', 'a', 'b', 'c']]],
    ['a cycle behind a chain', 'x: a:x,b b:c c:a', [['a', 'b', 'c', 'a']]],
    [
      'two separate cycles',
      'a:b b:a c:d d:c',
      [
        ['a', 'b', 'a'],
        ['c', 'd', 'c'],
      ],
    ],
    [
      'two cycles through one node',
      'a:b,c b:a c:a',
      [
        ['a', 'b', 'a'],
        ['a', 'c', 'a'],
      ],
    ],
  ])('names the cycle in %s, from the node listed first', (_name, spec, expected) => {
    expect(findDependencyCycles(graph(spec))).toEqual(expected);
  });

  it.each([
    ['reached again from another node', 'a:b b:a c:a,b'],
    ['whose edge is listed twice', 'a:b,b b:a,a'],
    ['of a node listed twice in its own depends_on', 'a:a,a'],
  ])('names a cycle once when it is %s', (_name, spec) => {
    expect(findDependencyCycles(graph(spec))).toHaveLength(1);
  });

  it('uses the first of two nodes with the same id', () => {
    expect(findDependencyCycles(graph('a: b:a a:b'))).toEqual([]);
  });

  it('walks a chain of 100000 nodes without overflowing the stack', () => {
    const nodes = Array.from({ length: 100_000 }, (_, index) => ({
      id: `n${String(index)}`,
      dependsOn: index === 0 ? ['n99999'] : [`n${String(index - 1)}`],
    }));
    const [cycle] = findDependencyCycles(nodes);
    expect(cycle).toHaveLength(100_001);
    expect(cycle?.[0]).toBe('n0');
  });
});
