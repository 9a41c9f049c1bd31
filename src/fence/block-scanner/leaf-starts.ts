import type { BlockScan } from './block-scan.js';
import { isSpaceOrTab } from './line-cursor.js';

/** CommonMark 4.2: an ATX heading opens with 1 to 6 `#`. */
const MAX_HEADING_LEVEL = 6;
/** CommonMark 4.1: a thematic break holds 3 or more of its character. */
const MIN_THEMATIC_MARKS = 3;

/** Whether an ATX heading starts at the next non-space (CommonMark 4.2). */
export function isAtxHeading(scan: BlockScan): boolean {
  const text = scan.text;
  const end = scan.lineEnd;
  let position = scan.nextNonspace;
  while (position < end && text.charCodeAt(position) === 0x23 /* # */) position++;
  const level = position - scan.nextNonspace;
  return level <= MAX_HEADING_LEVEL && (position === end || isSpaceOrTab(text.charCodeAt(position)));
}

/** Whether the rest of the line from the next non-space is a setext underline of `code` (CommonMark 4.3). */
export function isSetextUnderline(scan: BlockScan, code: number): boolean {
  const text = scan.text;
  const end = scan.lineEnd;
  let position = scan.nextNonspace;
  while (position < end && text.charCodeAt(position) === code) position++;
  while (position < end && isSpaceOrTab(text.charCodeAt(position))) position++;
  return position === end;
}

/**
 * Whether the rest of the line from the next non-space is a thematic break of `code` (CommonMark 4.1); a
 * failure is remembered for the line, so that `- - - … x` costs one scan and not one per list marker.
 */
export function isThematicBreak(scan: BlockScan, code: number): boolean {
  if (
    scan.thematicFailLine === scan.lineNumber &&
    scan.thematicFailCode === code &&
    scan.thematicFailAt >= scan.nextNonspace
  )
    return false;
  const text = scan.text;
  let count = 0;
  for (let position = scan.nextNonspace; position < scan.lineEnd; position++) {
    const current = text.charCodeAt(position);
    if (current === code) count++;
    else if (!isSpaceOrTab(current)) {
      scan.thematicFailLine = scan.lineNumber;
      scan.thematicFailCode = code;
      scan.thematicFailAt = position;
      return false;
    }
  }
  return count >= MIN_THEMATIC_MARKS;
}
