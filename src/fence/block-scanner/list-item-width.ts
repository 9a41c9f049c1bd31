import type { BlockScan } from './block-scan.js';
import { isSpaceOrTab } from './line-cursor.js';

/** CommonMark 5.2: an ordered list marker has at most 9 digits. */
const MAX_ORDINAL_DIGITS = 9;
/** CommonMark 5.2: five or more spaces after a list marker make the item start with indented code. */
const MAX_MARKER_SPACES = 5;

/**
 * The content width of a list item starting at the next non-space (CommonMark 5.2), moving the cursor past
 * its marker and the space after it; 0 when no list item starts there.
 */
export function listItemWidth(scan: BlockScan, code: number, interruptsParagraph: boolean): number {
  const text = scan.text;
  const end = scan.lineEnd;
  const markerStart = scan.nextNonspace;
  let markerEnd = markerStart;
  if (code === 0x2a || code === 0x2b || code === 0x2d) {
    markerEnd++;
  } else if (code >= 0x30 && code <= 0x39) {
    while (
      markerEnd < end &&
      markerEnd - markerStart <= MAX_ORDINAL_DIGITS &&
      isDigit(text.charCodeAt(markerEnd))
    )
      markerEnd++;
    const digits = markerEnd - markerStart;
    const delimiter = markerEnd < end ? text.charCodeAt(markerEnd) : -1;
    if (digits > MAX_ORDINAL_DIGITS || (delimiter !== 0x2e && delimiter !== 0x29)) return 0;
    // micromark: only an item numbered exactly 1 may interrupt a paragraph.
    if (interruptsParagraph && (digits !== 1 || code !== 0x31)) return 0;
    markerEnd++;
  } else {
    return 0;
  }
  const after = markerEnd < end ? text.charCodeAt(markerEnd) : -1;
  if (after !== -1 && !isSpaceOrTab(after)) return 0;
  if (interruptsParagraph) {
    // CommonMark 5.2: an empty list item cannot interrupt a paragraph.
    let position = markerEnd;
    while (position < end && isSpaceOrTab(text.charCodeAt(position))) position++;
    if (position === end) return 0;
  }
  const markerOffset = scan.indent;
  const markerLength = markerEnd - markerStart;
  scan.advanceNextNonspace();
  scan.advanceOffset(markerLength, true);
  const spacesStartColumn = scan.column;
  const spacesStartOffset = scan.offset;
  do {
    scan.advanceOffset(1, true);
  } while (scan.column - spacesStartColumn < MAX_MARKER_SPACES && isSpaceOrTab(scan.charAt(scan.offset)));
  const blankItem = scan.offset >= end;
  const spacesAfterMarker = scan.column - spacesStartColumn;
  if (spacesAfterMarker >= MAX_MARKER_SPACES || spacesAfterMarker < 1 || blankItem) {
    // CommonMark 5.2: then the content starts one space after the marker.
    scan.column = spacesStartColumn;
    scan.offset = spacesStartOffset;
    scan.partialTab = false;
    if (isSpaceOrTab(scan.charAt(scan.offset))) scan.advanceOffset(1, true);
    return markerOffset + markerLength + 1;
  }
  return markerOffset + markerLength + spacesAfterMarker;
}

function isDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}
