import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { BlockScan, CODE_INDENT, QUOTE } from '../../../src/fence/block-scanner/block-scan.js';
import { incorporateLine } from '../../../src/fence/block-scanner/incorporate-line.js';
import { isSpaceOrTab } from '../../../src/fence/block-scanner/line-cursor.js';
import { matchContainers } from '../../../src/fence/block-scanner/match-containers.js';
import { PATHOLOGICAL_SHAPES } from '../../helpers/pathological-markdown.js';
import { generateDocument } from '../corpus/generate-document.js';

const require = createRequire(import.meta.url);
const spec = require('commonmark-spec') as { readonly tests: readonly { readonly markdown: string }[] };

/**
 * Container matching as the scanner did it before issue 23, one container at a time, blank lines included:
 * the reference that matchContainers, which matches a blank line's list items in one step, must equal.
 */
function matchOneByOne(scan: BlockScan): void {
  scan.findNextNonspace();
  const top = scan.depth - 1;
  let matched = 0;
  let blankFrom = -1;
  let blankColumn = 0;
  scan.blankRemainderColumns = -1;
  for (let index = 1; index <= top; index++) {
    if (index > 1) scan.findNextNonspace();
    if (scan.kinds[index] === QUOTE) {
      if (scan.indent >= CODE_INDENT || scan.charAt(scan.nextNonspace) !== 0x3e) break;
      scan.advanceNextNonspace();
      scan.advanceOffset(1, false);
      if (isSpaceOrTab(scan.charAt(scan.offset))) scan.advanceOffset(1, true);
    } else if (isBlank(scan)) {
      if (!hasChild(scan, index)) break;
      if (blankFrom === -1) {
        blankFrom = index;
        blankColumn = scan.column;
      }
      scan.advanceNextNonspace();
    } else {
      const width = scan.widths[index] ?? 0;
      if (scan.indent < width) break;
      scan.advanceOffset(width, true);
    }
    matched = index;
  }
  scan.prefixColumn = scan.column;
  if (blankFrom !== -1) {
    const widths = itemWidthsOf(scan, matched) - itemWidthsOf(scan, blankFrom - 1);
    scan.blankRemainderColumns = scan.nextNonspaceColumn - blankColumn - widths;
    scan.prefixColumn = blankColumn + widths;
  }
  scan.matchedContainers = matched;
  scan.matchedQuoteRuns = quoteRunStarts(scan, matched).length;
  scan.matchedItemWidths = itemWidthsOf(scan, matched);
}

/** Sum of the widths of the list items at or below `through`, counted one by one. */
function itemWidthsOf(scan: BlockScan, through: number): number {
  let sum = 0;
  for (let index = 1; index <= through; index++)
    if (scan.kinds[index] !== QUOTE) sum += scan.widths[index] ?? 0;
  return sum;
}

/** Where each run of consecutive block quotes at or below `through` starts, found one container at a time. */
function quoteRunStarts(scan: BlockScan, through: number): number[] {
  const starts: number[] = [];
  for (let index = 1; index <= through; index++)
    if (scan.kinds[index] === QUOTE && (index === 1 || scan.kinds[index - 1] !== QUOTE)) starts.push(index);
  return starts;
}

/** The sums the stack keeps for blank lines, as they must be: recounted from its containers. */
function stackSums(scan: BlockScan): string {
  const top = scan.depth - 1;
  const starts = quoteRunStarts(scan, top);
  return JSON.stringify({
    itemWidths: itemWidthsOf(scan, top),
    quoteRuns: starts.map((start) => [start, itemWidthsOf(scan, start)]),
  });
}

/** The sums the stack holds. */
function keptSums(scan: BlockScan): string {
  const runs: [number, number][] = [];
  for (let run = 1; run <= scan.quoteRuns; run++)
    runs.push([scan.quoteRunStart[run] ?? -1, scan.quoteRunItemWidths[run] ?? -1]);
  return JSON.stringify({ itemWidths: scan.itemWidths, quoteRuns: runs });
}

function isBlank(scan: BlockScan): boolean {
  return scan.blank;
}

/** Whether the container at `index` holds a block yet: every container below the innermost holds the next. */
function hasChild(scan: BlockScan, index: number): boolean {
  return index < scan.depth - 1 || scan.topHasChild;
}

/** What matching leaves for the rest of the line's reading (`indent` is found again before it is read). */
function matchResult(scan: BlockScan): Record<string, number | boolean> {
  return {
    offset: scan.offset,
    column: scan.column,
    partialTab: scan.partialTab,
    nextNonspace: scan.nextNonspace,
    nextNonspaceColumn: scan.nextNonspaceColumn,
    blank: scan.blank,
    matchedContainers: scan.matchedContainers,
    matchedQuoteRuns: scan.matchedQuoteRuns,
    matchedItemWidths: scan.matchedItemWidths,
    prefixColumn: scan.prefixColumn,
    blankRemainderColumns: scan.blankRemainderColumns,
  };
}

function copyOf(scan: BlockScan): BlockScan {
  return Object.assign(Object.create(BlockScan.prototype) as BlockScan, scan);
}

/**
 * The first line of `markdown` where matchContainers and matching one container at a time differ, or after
 * which the sums the stack keeps are not those of its containers.
 */
function firstDifference(markdown: string): string | undefined {
  const scan = new BlockScan(markdown, () => undefined);
  let start = markdown.charCodeAt(0) === 0xfeff ? 1 : 0;
  while (start < markdown.length) {
    scan.startLine(start);
    const inOneStep = copyOf(scan);
    matchContainers(inOneStep);
    const oneByOne = copyOf(scan);
    matchOneByOne(oneByOne);
    const [actual, expected] = [matchResult(inOneStep), matchResult(oneByOne)];
    if (JSON.stringify(actual) !== JSON.stringify(expected))
      return `line ${String(scan.lineNumber)}: ${JSON.stringify(actual)} instead of ${JSON.stringify(expected)}`;
    incorporateLine(scan);
    if (keptSums(scan) !== stackSums(scan))
      return `after line ${String(scan.lineNumber)}: ${keptSums(scan)} instead of ${stackSums(scan)}`;
    start = scan.nextLineStart;
  }
  return undefined;
}

describe('matchContainers', () => {
  it.each(spec.tests.map((example, index) => [index + 1, example.markdown.replace(/→/g, '\t')] as const))(
    'matches what one container at a time matches on spec example %i',
    (_number, markdown) => {
      expect(firstDifference(markdown)).toBeUndefined();
    },
  );

  it('matches what one container at a time matches on 2,000 generated documents', () => {
    const differences: string[] = [];
    for (let seed = 1; seed <= 2_000; seed++) {
      const difference = firstDifference(generateDocument(seed));
      if (difference !== undefined) differences.push(`seed ${String(seed)}, ${difference}`);
    }
    expect(differences).toEqual([]);
  });

  it.each(PATHOLOGICAL_SHAPES.map((shape) => [shape.name, shape.make(3_000)] as const))(
    'matches what one container at a time matches on %s',
    (_name, markdown) => {
      expect(firstDifference(markdown)).toBeUndefined();
    },
  );

  it.each<[string, string]>([
    ['an empty item at the top of a quoted list', '> - a\n>   - \n>\n> x\n'],
    ['items between quotes, then a line of the outer quote', '> - > - > - x\n>\n> >\n'],
    ['a tab after the quote marker of a blank line', '> - - x\n>\t\n>\t\t\n'],
    ['a partly used tab before a blank rest', '-\t- x\n \t\n\t \n'],
    ['a fence in the innermost item, then blank quote lines', '> - - ```\n>\n>     x\n>\n'],
  ])('matches what one container at a time matches on %s', (_name, markdown) => {
    expect(firstDifference(markdown)).toBeUndefined();
  });
});
