import { isSpaceOrTab } from './line-cursor.js';
import { type BlockScan, CODE_INDENT, QUOTE } from './block-scan.js';

/**
 * Matches the line, cursor at its start, against each open container in turn (CommonMark 5: container
 * continuation), leaving the cursor after the last one matched and `matchedContainers` set.
 */
export function matchContainers(scan: BlockScan): void {
  scan.findNextNonspace();
  const top = scan.depth - 1;
  if (scan.blank) {
    // A blank line continues every list item up to the first block quote, except an item that is still
    // empty (CommonMark 5.2), without consuming anything per item: depth costs nothing on blank lines.
    const firstQuote = scan.firstQuote[top] ?? Number.POSITIVE_INFINITY;
    let matched = firstQuote > top ? top : firstQuote - 1;
    if (matched === top && top >= 1 && scan.hasChild[top] !== true) matched = top - 1;
    scan.blankRemainderColumns = -1;
    scan.prefixColumn = scan.itemWidthTotal[matched] ?? 0;
    if (matched >= 1) {
      scan.blankRemainderColumns = scan.nextNonspaceColumn - (scan.itemWidthTotal[matched] ?? 0);
      scan.advanceNextNonspace();
    }
    scan.matchedContainers = matched;
    return;
  }
  let matched = 0;
  let blankFrom = -1;
  let blankColumn = 0;
  scan.blankRemainderColumns = -1;
  for (let index = 1; index <= top; index++) {
    if (index > 1) scan.findNextNonspace();
    if (scan.kinds[index] === QUOTE) {
      if (scan.indent >= CODE_INDENT || scan.charAt(scan.nextNonspace) !== 0x3e /* > */) break;
      // CommonMark 5.1: the marker is `>` and one optional space or tab (a tab possibly only in part).
      scan.advanceNextNonspace();
      scan.advanceOffset(1, false);
      if (isSpaceOrTab(scan.charAt(scan.offset))) scan.advanceOffset(1, true);
    } else if (restIsBlank(scan)) {
      if (scan.hasChild[index] !== true) break;
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
    const widths = (scan.itemWidthTotal[matched] ?? 0) - (scan.itemWidthTotal[blankFrom - 1] ?? 0);
    scan.blankRemainderColumns = scan.nextNonspaceColumn - blankColumn - widths;
    scan.prefixColumn = blankColumn + widths;
  }
  scan.matchedContainers = matched;
}

/** Whether the line is blank from its next non-space on (a call, since the compiler narrows `blank` above). */
function restIsBlank(scan: BlockScan): boolean {
  return scan.blank;
}
