import { type BlockScan, CODE_INDENT, HTML, INDENTED, ITEM, PARAGRAPH, QUOTE } from './block-scan.js';
import { openFence } from './code-fenced.js';
import { htmlBlockKind } from './html-block-kind.js';
import { isAtxHeading, isSetextUnderline, isThematicBreak } from './leaf-starts.js';
import { isSpaceOrTab } from './line-cursor.js';
import { listItemWidth } from './list-item-width.js';

/**
 * Opens the blocks that start on the line, cursor after its matched containers (CommonMark 5 and the spec's
 * appendix: new containers, then at most one leaf); returns whether a leaf took the whole line.
 */
export function openBlocks(scan: BlockScan): boolean {
  let paragraphIsContainer = scan.leafMatched && scan.leaf === PARAGRAPH;
  // An open code or HTML block takes the line as it is.
  if (scan.leafMatched && scan.leaf !== PARAGRAPH) return false;
  for (;;) {
    scan.findNextNonspace();
    const indented = scan.indent >= CODE_INDENT;
    const code = scan.charAt(scan.nextNonspace);
    if (!indented && !mayStartBlock(code)) {
      scan.advanceNextNonspace();
      return false;
    }
    if (!indented && code === 0x3e /* > */) {
      // CommonMark 5.1: the marker is `>` and one optional space or tab (a tab possibly only in part).
      scan.advanceNextNonspace();
      scan.advanceOffset(1, false);
      if (isSpaceOrTab(scan.charAt(scan.offset))) scan.advanceOffset(1, true);
      scan.closeUnmatched();
      scan.addContainer(QUOTE, 0);
      paragraphIsContainer = false;
      continue;
    }
    if (!indented && code === 0x23 /* # */ && isAtxHeading(scan)) {
      scan.closeUnmatched();
      scan.addSingleLineLeaf();
      return true;
    }
    if (!indented && (code === 0x60 || code === 0x7e) && openFence(scan, code)) return true;
    if (!indented && code === 0x3c /* < */) {
      const kind = htmlBlockKind(scan.text, scan.nextNonspace, scan.lineEnd);
      // CommonMark 4.6: an HTML block of kind 7 cannot interrupt a paragraph, lazy or not.
      const mayInterrupt =
        !paragraphIsContainer && !(!scan.allClosed && !scan.blank && scan.leaf === PARAGRAPH);
      if (kind !== 0 && (kind < 7 || mayInterrupt)) {
        scan.closeUnmatched();
        scan.addLeaf(HTML);
        scan.htmlKind = kind;
        return false;
      }
    }
    if (
      !indented &&
      paragraphIsContainer &&
      (code === 0x3d || code === 0x2d) &&
      isSetextUnderline(scan, code) &&
      !scan.paragraphIsDefinitionsOnly()
    ) {
      scan.closeUnmatched();
      scan.closeLeaf(scan.lineNumber);
      return true;
    }
    if (!indented && (code === 0x2a || code === 0x2d || code === 0x5f) && isThematicBreak(scan, code)) {
      scan.closeUnmatched();
      scan.addSingleLineLeaf();
      return true;
    }
    if (!indented) {
      const width = listItemWidth(scan, code, paragraphIsContainer);
      if (width !== 0) {
        scan.closeUnmatched();
        scan.addContainer(ITEM, width);
        paragraphIsContainer = false;
        continue;
      }
    }
    if (indented && scan.leaf !== PARAGRAPH && !scan.blank) {
      // CommonMark 4.4: indented code cannot interrupt a paragraph.
      scan.advanceOffset(CODE_INDENT, true);
      scan.closeUnmatched();
      scan.addLeaf(INDENTED);
      return true;
    }
    scan.advanceNextNonspace();
    return false;
  }
}

/** The characters that can begin a block other than a paragraph (commonmark.js's reMaybeSpecial). */
function mayStartBlock(code: number): boolean {
  switch (code) {
    case 0x23:
    case 0x60:
    case 0x7e:
    case 0x2a:
    case 0x2b:
    case 0x5f:
    case 0x3d:
    case 0x3c:
    case 0x3e:
    case 0x2d:
      return true;
    default:
      return code >= 0x30 && code <= 0x39;
  }
}
