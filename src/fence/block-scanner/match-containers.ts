import { isSpaceOrTab } from './line-cursor.js';
import { type BlockScan, CODE_INDENT, QUOTE } from './block-scan.js';

/**
 * Matches the line, cursor at its start, against each open container in turn (CommonMark 5: container
 * continuation), leaving the cursor after the last one matched and `matchedContainers` set. Each container
 * looked at is one of `containerSteps`.
 */
export function matchContainers(scan: BlockScan): void {
  scan.findNextNonspace();
  const top = scan.depth - 1;
  let matched = 0;
  let quoteRuns = 0;
  let itemWidths = 0;
  scan.blankRemainderColumns = -1;
  let index = 1;
  for (; index <= top; index++) {
    if (index > 1) scan.findNextNonspace();
    if (scan.kinds[index] === QUOTE) {
      if (scan.indent >= CODE_INDENT || scan.charAt(scan.nextNonspace) !== 0x3e /* > */) break;
      // CommonMark 5.1: the marker is `>` and one optional space or tab (a tab possibly only in part).
      scan.advanceNextNonspace();
      scan.advanceOffset(1, false);
      if (isSpaceOrTab(scan.charAt(scan.offset))) scan.advanceOffset(1, true);
      if (scan.kinds[index - 1] !== QUOTE) quoteRuns++;
    } else if (scan.blank) {
      // Only the line's start or a block quote marker leaves the rest of a line blank: `index - 1` is one.
      scan.matchedQuoteRuns = quoteRuns;
      scan.matchedItemWidths = itemWidths;
      scan.containerSteps += index;
      matchBlankItems(scan, index);
      return;
    } else {
      const width = scan.widths[index] ?? 0;
      if (scan.indent < width) break;
      scan.advanceOffset(width, true);
      itemWidths += width;
    }
    matched = index;
  }
  scan.containerSteps += index;
  scan.prefixColumn = scan.column;
  scan.matchedContainers = matched;
  scan.matchedQuoteRuns = quoteRuns;
  scan.matchedItemWidths = itemWidths;
}

/**
 * Matches the list items from `first` on, right after the line's start or a run of block quotes, where the
 * rest of the line is blank: a blank line continues every list item up to the next block quote, except an
 * item that is still empty (CommonMark 5.2). One step however many there are, since nothing is consumed per
 * item: a `>` line in a list 30,000 items deep inside a block quote costs what an empty line does (matching
 * them one by one made cmark's 120 KB document take 36 s).
 */
function matchBlankItems(scan: BlockScan, first: number): void {
  const top = scan.depth - 1;
  const nextRun = scan.matchedQuoteRuns + 1;
  let matched = top;
  let itemWidths = scan.itemWidths;
  if (nextRun <= scan.quoteRuns) {
    matched = (scan.quoteRunStart[nextRun] ?? 0) - 1;
    itemWidths = scan.quoteRunItemWidths[nextRun] ?? 0;
  } else if (!scan.topHasChild) {
    matched = top - 1;
    itemWidths -= scan.widths[top] ?? 0;
  }
  scan.prefixColumn = scan.column;
  scan.matchedContainers = matched;
  if (matched < first) return;
  const widths = itemWidths - scan.matchedItemWidths;
  scan.matchedItemWidths = itemWidths;
  // micromark counts a blank line's list items one width each, whatever the line holds.
  scan.blankRemainderColumns = scan.nextNonspaceColumn - scan.column - widths;
  scan.prefixColumn = scan.column + widths;
  scan.advanceNextNonspace();
}
