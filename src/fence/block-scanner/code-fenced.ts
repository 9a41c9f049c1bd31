import { type BlockScan, CODE_INDENT, FENCED } from './block-scan.js';
import { isSpaceOrTab } from './line-cursor.js';

/**
 * Opens a fenced code block if the line has an opening fence at its next non-space (CommonMark 4.5); the
 * cursor stays there, since the rest of the line is the info string.
 */
export function openFence(scan: BlockScan, code: number): boolean {
  const text = scan.text;
  const end = scan.lineEnd;
  let position = scan.nextNonspace;
  while (position < end && text.charCodeAt(position) === code) position++;
  const length = position - scan.nextNonspace;
  if (length < 3) return false;
  const infoStart = position;
  if (code === 0x60) {
    // CommonMark 4.5: the info string of a backtick fence may not contain a backtick.
    for (let at = infoStart; at < end; at++) if (text.charCodeAt(at) === 0x60) return false;
  }
  scan.closeUnmatched();
  const indent = scan.indent;
  scan.addLeaf(FENCED);
  let infoFrom = infoStart;
  let infoTo = end;
  while (infoFrom < infoTo && isSpaceOrTab(text.charCodeAt(infoFrom))) infoFrom++;
  while (infoTo > infoFrom && isSpaceOrTab(text.charCodeAt(infoTo - 1))) infoTo--;
  scan.fence.open(code, length, indent, scan.lineNumber, text.slice(infoFrom, infoTo));
  return true;
}

/** Whether the line, cursor at its next non-space, closes the open fence (CommonMark 4.5). */
export function isClosingFence(scan: BlockScan): boolean {
  if (scan.indent >= CODE_INDENT) return false;
  const text = scan.text;
  const end = scan.lineEnd;
  const code = scan.fence.fenceCode;
  let position = scan.nextNonspace;
  while (position < end && text.charCodeAt(position) === code) position++;
  if (position - scan.nextNonspace < scan.fence.fenceLength) return false;
  while (position < end && isSpaceOrTab(text.charCodeAt(position))) position++;
  return position === end;
}

/** Moves the cursor past what CommonMark 4.5 removes of a content line: up to the opening fence's indentation. */
export function skipFenceIndent(scan: BlockScan): void {
  for (
    let remaining = scan.fence.fenceIndent;
    remaining > 0 && isSpaceOrTab(scan.charAt(scan.offset));
    remaining--
  )
    scan.advanceOffset(1, true);
}

/** Adds the rest of the line from the cursor, with its own ending, to the open fence's content. */
export function addFenceLine(scan: BlockScan): void {
  const fence = scan.fence;
  // A last line without an ending that holds only container prefixes ends the block before it, as micromark sees it.
  if (scan.nextLineStart !== scan.lineEnd || !scan.onlyPrefixes) fence.lastLine = scan.lineNumber;
  else fence.lastLineTokenless = true;
  if (scan.partialTab) {
    // CommonMark 2.2: a tab only partly used as indentation leaves its remaining columns as spaces.
    fence.addSpaces(4 - (scan.column % 4));
    scan.offset++;
  }
  fence.addSlice(scan.offset, scan.nextLineStart);
}
