import { describe, expect, it } from 'vitest';
import { checkNodeTemplates } from '../../../src/runtime/graph/check-node-templates.js';
import { viewNodes, type NodeView } from '../../../src/runtime/graph/graph-node-view.js';

/** Views of `nodes` and the lookup by id the rules use. */
function setup(nodes: Record<string, unknown>[]): { views: NodeView[]; firstById: Map<string, NodeView> } {
  const views = viewNodes(nodes);
  return { views, firstById: new Map(views.map((view) => [view.id ?? '', view])) };
}

describe('checkNodeTemplates', () => {
  it('points each issue at the variable: its field, its text and which occurrence of that text', () => {
    const { views, firstById } = setup([{ id: 'a', prompt: '{{gaol}} {gaol} {gaol}', content: '{x}' }]);
    expect(checkNodeTemplates(views[0]!, ['goal'], firstById)).toEqual([
      {
        path: ['nodes', 0, 'prompt'],
        message: expect.stringMatching(/^unknown template variable \{gaol\} /) as string,
        params: { token: '{gaol}', occurrence: 1 },
      },
      {
        path: ['nodes', 0, 'content'],
        message: expect.stringMatching(/^unknown template variable \{x\} /) as string,
        params: { token: '{x}', occurrence: 0 },
      },
    ]);
  });

  it.each<[string, string[], string | undefined]>([
    ['a declared input', ['{goal}'], undefined],
    ['run_id', ['{run_id}'], undefined],
    ['a direct dependency', ['{b.output}'], undefined],
    ['a dependency of a dependency', ['{c.output}'], undefined],
    [
      'a node that is no dependency',
      ['{d.output}'],
      'which node "a" does not depend on; add "d" to its depends_on',
    ],
    ['the node itself', ['{a.output}'], "{a.output} is this node's own document"],
    ['a node that does not exist', ['{zzz.output}'], '{zzz.output} names no node; the nodes are a, b, c, d'],
    [
      'an undeclared input',
      ['{topic}'],
      'unknown template variable {topic} (known here: {goal}, {run_id}); declare it',
    ],
  ])('judges %s', (_name, [template = ''], expected) => {
    const { views, firstById } = setup([
      { id: 'a', depends_on: ['b'], prompt: template },
      { id: 'b', depends_on: ['c'] },
      { id: 'c' },
      { id: 'd' },
    ]);
    const messages = checkNodeTemplates(views[0]!, ['goal'], firstById).map((issue) => issue.message);
    if (expected === undefined) expect(messages).toEqual([]);
    else expect(messages).toEqual([expect.stringContaining(expected) as string]);
  });

  it('terminates on a dependency cycle and still sees what the cycle reaches', () => {
    const { views, firstById } = setup([
      { id: 'a', depends_on: ['b'], prompt: '{c.output}' },
      { id: 'b', depends_on: ['a', 'c'] },
      { id: 'c' },
    ]);
    expect(checkNodeTemplates(views[0]!, [], firstById)).toEqual([]);
  });

  it('leaves a node output in output_path to the output path check', () => {
    const { views, firstById } = setup([{ id: 'a', output_path: 'docs/{zzz.output}.md' }]);
    expect(checkNodeTemplates(views[0]!, [], firstById)).toEqual([]);
  });

  it('checks nothing in a node without an id', () => {
    const { views, firstById } = setup([{ prompt: '{nothing}' }]);
    expect(checkNodeTemplates(views[0]!, [], firstById)).toEqual([]);
  });
});
