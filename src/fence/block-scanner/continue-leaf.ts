import { type BlockScan, CODE_INDENT, FENCED, HTML, INDENTED } from './block-scan.js';
import { skipFenceIndent } from './code-fenced.js';

/**
 * Whether the open leaf continues on this line, cursor at the line's next non-space after its containers,
 * moving the cursor past the indentation the leaf removes.
 */
export function continueLeaf(scan: BlockScan): boolean {
  switch (scan.leaf) {
    case FENCED:
      skipFenceIndent(scan);
      return true;
    case INDENTED:
      if (scan.indent >= CODE_INDENT) scan.advanceOffset(CODE_INDENT, true);
      else if (scan.blank) scan.advanceNextNonspace();
      else return false;
      return true;
    case HTML:
      // CommonMark 4.6: HTML blocks of kinds 6 and 7 end at a blank line.
      return !(scan.blank && (scan.htmlKind === 6 || scan.htmlKind === 7));
    default:
      return !scan.blank;
  }
}
