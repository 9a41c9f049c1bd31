import { describe, expect, it } from 'vitest';
import { BlockScan } from '../../../src/fence/block-scanner/block-scan.js';
import { incorporateLine } from '../../../src/fence/block-scanner/incorporate-line.js';
import { emptyLinesInQuotedNestedList, PATHOLOGICAL_SHAPES } from '../../helpers/pathological-markdown.js';
import { generateDocument } from '../corpus/generate-document.js';

/** The lines of `markdown` and the containers matching them looked at, as the scanner reads them. */
function containerSteps(markdown: string): { lines: number; steps: number } {
  const scan = new BlockScan(markdown, () => undefined);
  let start = markdown.charCodeAt(0) === 0xfeff ? 1 : 0;
  let lines = 0;
  while (start < markdown.length) {
    scan.startLine(start);
    incorporateLine(scan);
    lines++;
    start = scan.nextLineStart;
  }
  return { lines, steps: scan.containerSteps };
}

/**
 * What a line may cost: one step, and one per container it matches, of which there are at most two per byte
 * (a `>`, or a list item of two columns or more, a tab being four). Matching a blank line's list items one by
 * one, as cmark's blank lines in a deep list in a block quote once took 36 s at 120 KB, costs the list's depth
 * per line: thousands of times this bound on the suite's document.
 */
function bound(markdown: string, lines: number): number {
  return 2 * markdown.length + lines;
}

const SHAPE_BYTES = 10_000;

describe('container matching stays linear in the document (issue 23)', () => {
  it.each(PATHOLOGICAL_SHAPES.map((shape) => [`${shape.name} (${shape.source})`, shape.make(SHAPE_BYTES)]))(
    '%s',
    (_name, markdown) => {
      const { lines, steps } = containerSteps(markdown);
      expect(steps).toBeLessThanOrEqual(bound(markdown, lines));
    },
  );

  it.each([
    ['as the suite builds it: 30,000 items, 120 KB', emptyLinesInQuotedNestedList(30_000)],
    ['the issue 90 KB one: 22,500 items', emptyLinesInQuotedNestedList(22_500)],
  ])("cmark's blank lines in a deep list in a block quote, %s: two steps a line", (_name, markdown) => {
    const { lines, steps } = containerSteps(markdown);
    // The opening line looks at no container; each `>` line at its quote and the first item after it.
    expect(steps).toBeLessThanOrEqual(3 * lines);
  });

  it('holds on 300 generated documents', () => {
    const over: string[] = [];
    for (let seed = 1; seed <= 300; seed++) {
      const markdown = generateDocument(seed);
      const { lines, steps } = containerSteps(markdown);
      if (steps > bound(markdown, lines)) over.push(`seed ${String(seed)}: ${String(steps)} steps`);
    }
    expect(over).toEqual([]);
  });
});
