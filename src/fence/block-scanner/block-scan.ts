import type { RawFence } from '../read-fenced-blocks.js';
import { FenceContent } from './fence-content.js';
import { isDefinitionsOnly } from './is-definitions-only.js';
import { LineCursor } from './line-cursor.js';

/** Container kinds on the stack. */
export const QUOTE = 1;
export const ITEM = 2;

/** Kinds of the open leaf block. */
export const NO_LEAF = 0;
export const PARAGRAPH = 1;
export const FENCED = 2;
export const INDENTED = 3;
export const HTML = 4;

/** CommonMark 4.4: four columns of indentation make indented code. */
export const CODE_INDENT = 4;

/**
 * The block structure of one document as the spec's appendix "A parsing strategy" (and commonmark.js) keeps
 * it: a stack of open containers with one open leaf at its top, and the line being read (one object, so that
 * the per-line steps in this folder share their fields without indirection).
 */
export class BlockScan extends LineCursor {
  readonly fence: FenceContent;
  /** Receives each fenced block as it ends, so that the blocks a caller drops are garbage at once. */
  private readonly onFence: (fence: RawFence) => void;

  // Open containers; index 0 is the document.
  depth = 1;
  readonly kinds: number[] = [0];
  readonly widths: number[] = [0];
  readonly hasChild: boolean[] = [true];
  /** Block quotes at or below each index; `quoteAt[n]` is the index of the n-th (from 1) on the stack. */
  readonly quotesThrough: number[] = [0];
  readonly quoteAt: number[] = [0];
  /** Sum of list item widths at or below each index, for what micromark leaves of a blank line. */
  readonly itemWidthTotal: number[] = [0];

  // The open leaf at the top of the stack.
  leaf = NO_LEAF;
  htmlKind = 0;
  /** Lines of the open paragraph as [start, end) pairs, kept only while it may be link reference definitions. */
  paragraphLines: number[] | undefined;

  // Per line: how far the open blocks matched.
  matchedContainers = 0;
  /** Whitespace columns of this line left after its list items as micromark counts them (one width each). */
  blankRemainderColumns = -1;
  onlyPrefixes = false;
  /** The column where the matched containers' prefixes end, as micromark counts a blank line's list items. */
  prefixColumn = 0;
  leafMatched = false;
  allClosed = true;

  /** Where the thematic break check last failed on this line, so `- - - …x` is not rescanned per marker. */
  thematicFailLine = 0;
  thematicFailCode = 0;
  thematicFailAt = 0;

  constructor(text: string, onFence: (fence: RawFence) => void) {
    super(text);
    this.fence = new FenceContent(text);
    this.onFence = onFence;
  }

  /** Closes the blocks this line did not continue (once per line, before anything is added). */
  closeUnmatched(): void {
    if (this.allClosed) return;
    // The last line, without an ending, is its matched prefixes and the rest of a tab the last of them partly
    // used: micromark then counts the fence these unmatched containers close as open to the end of the document.
    if (this.leaf === FENCED && !this.leafMatched && this.blank && this.endsInTabAround(this.prefixColumn))
      this.finishFence(false, this.lineNumber - 1, true);
    else if (this.leaf !== NO_LEAF && !this.leafMatched) this.closeLeaf(this.lineNumber - 1);
    this.depth = this.matchedContainers + 1;
    this.allClosed = true;
  }

  /** Closes the open leaf, whose last line is `lastLine`; an open fence ends unclosed. */
  closeLeaf(lastLine: number): void {
    if (this.leaf === FENCED) this.finishFence(false, lastLine, false);
    this.leaf = NO_LEAF;
    this.paragraphLines = undefined;
  }

  /** Records the open fence as found and leaves no leaf open. */
  finishFence(closed: boolean, endLine: number, reachesEnd: boolean): void {
    this.onFence(this.fence.finish(closed, endLine, reachesEnd));
    this.leaf = NO_LEAF;
  }

  /** Opens a block quote or a list item of content `width` columns inside the innermost open container. */
  addContainer(kind: number, width: number): void {
    this.closeLeaf(this.lineNumber - 1);
    const index = this.depth;
    this.hasChild[index - 1] = true;
    this.kinds[index] = kind;
    this.widths[index] = width;
    this.hasChild[index] = false;
    this.itemWidthTotal[index] = (this.itemWidthTotal[index - 1] ?? 0) + (kind === ITEM ? width : 0);
    const quotes = (this.quotesThrough[index - 1] ?? 0) + (kind === QUOTE ? 1 : 0);
    this.quotesThrough[index] = quotes;
    if (kind === QUOTE) this.quoteAt[quotes] = index;
    this.depth = index + 1;
    this.matchedContainers = index;
  }

  /** The index of the first block quote above `index` on the stack, or `depth` when there is none. */
  nextQuoteAbove(index: number): number {
    const ordinal = (this.quotesThrough[index] ?? 0) + 1;
    return ordinal <= (this.quotesThrough[this.depth - 1] ?? 0) ? (this.quoteAt[ordinal] ?? 0) : this.depth;
  }

  /** Opens a leaf block that may span lines inside the innermost open container. */
  addLeaf(leaf: number): void {
    this.closeLeaf(this.lineNumber - 1);
    this.hasChild[this.depth - 1] = true;
    this.leaf = leaf;
    this.leafMatched = true;
  }

  /** Adds a heading or thematic break: a child that closes on its own line. */
  addSingleLineLeaf(): void {
    this.closeLeaf(this.lineNumber - 1);
    this.hasChild[this.depth - 1] = true;
  }

  /** Keeps the rest of the line as a paragraph line while the paragraph may still be definitions only. */
  addParagraphLine(): void {
    const lines = this.paragraphLines;
    if (lines !== undefined) lines.push(this.offset, this.lineEnd);
  }

  /** CommonMark 4.3: a paragraph of link reference definitions only takes no setext underline. */
  paragraphIsDefinitionsOnly(): boolean {
    const lines = this.paragraphLines;
    if (lines === undefined) return false;
    let paragraph = '';
    for (let index = 0; index < lines.length; index += 2)
      paragraph += `${index === 0 ? '' : '\n'}${this.text.slice(lines[index], lines[index + 1])}`;
    return isDefinitionsOnly(paragraph);
  }
}
