import { type BlockScan, FENCED, HTML, NO_LEAF, PARAGRAPH } from './block-scan.js';
import { addFenceLine, isClosingFence } from './code-fenced.js';
import { continueLeaf } from './continue-leaf.js';
import { htmlBlockEnds } from './html-block-kind.js';
import { matchContainers } from './match-containers.js';
import { openBlocks } from './open-blocks.js';

/**
 * Reads the line the cursor was moved to (`startLine`) into the block structure, as commonmark.js's
 * `incorporateLine` does: match the open containers, continue or close the open leaf, open new blocks, give the
 * rest of the line to the block that takes it.
 */
export function incorporateLine(scan: BlockScan): void {
  matchContainers(scan);
  // micromark gives container prefixes no token inside the block, so a line of prefixes only is no line of it.
  scan.onlyPrefixes =
    scan.blankRemainderColumns === -1
      ? scan.offset >= scan.lineEnd && !scan.partialTab
      : scan.blankRemainderColumns <= 0;
  if (scan.leaf !== NO_LEAF && scan.matchedContainers === scan.depth - 1) {
    scan.findNextNonspace();
    if (scan.leaf === FENCED && isClosingFence(scan)) {
      scan.finishFence(true, scan.lineNumber, false);
      return;
    }
    scan.leafMatched = continueLeaf(scan);
  } else {
    scan.leafMatched = false;
  }
  scan.allClosed = scan.matchedContainers === scan.depth - 1 && (scan.leaf === NO_LEAF || scan.leafMatched);
  const lineTaken = openBlocks(scan);
  if (!scan.allClosed && !scan.blank && scan.leaf === PARAGRAPH) {
    // CommonMark 5.1: a lazy continuation line of a paragraph.
    scan.addParagraphLine();
    return;
  }
  scan.closeUnmatched();
  if (!lineTaken) addLineRest(scan);
}

/** Gives the rest of the line, from the cursor, to the open leaf, or starts a paragraph with it. */
function addLineRest(scan: BlockScan): void {
  switch (scan.leaf) {
    case FENCED:
      addFenceLine(scan);
      return;
    case HTML:
      if (htmlBlockEnds(scan.htmlKind, scan.text, scan.offset, scan.lineEnd)) scan.leaf = NO_LEAF;
      return;
    case PARAGRAPH:
      scan.addParagraphLine();
      return;
    case NO_LEAF:
      if (!scan.blank && scan.offset < scan.lineEnd) {
        scan.addLeaf(PARAGRAPH);
        scan.advanceNextNonspace();
        // CommonMark 4.7: only a paragraph that starts with `[` may be link reference definitions.
        scan.paragraphLinesEnd = scan.charAt(scan.offset) === 0x5b /* [ */ ? 0 : -1;
        scan.addParagraphLine();
      }
      return;
    default:
      // An indented code block keeps no content here: only fences are read.
      return;
  }
}
