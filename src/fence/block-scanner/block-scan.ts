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

/** Room for open containers before the stack first grows. */
const INITIAL_CONTAINERS = 32;

/**
 * The block structure of one document as the spec's appendix "A parsing strategy" (and commonmark.js) keeps
 * it: a stack of open containers with one open leaf at its top, and the line being read (one object, so that
 * the per-line steps in this folder share their fields without indirection).
 */
export class BlockScan extends LineCursor {
  readonly fence: FenceContent;
  /** Receives each fenced block as it ends, so that the blocks a caller drops are garbage at once. */
  private readonly onFence: (fence: RawFence) => void;

  // Open containers, index 0 being the document: a kind and a width each, in typed arrays that double when
  // full, since a hostile document opens a container per byte or two (`>>>>`, `- - -`). What a blank line needs
  // of the items between two block quotes is kept per run of consecutive block quotes, not per container.
  depth = 1;
  /** QUOTE or ITEM. */
  kinds = new Uint8Array(INITIAL_CONTAINERS);
  /** A list item's content width in columns: at most 3 + 10 + 4 (CommonMark 5.2), 0 for a block quote. */
  widths = new Uint8Array(INITIAL_CONTAINERS);
  /** Whether the innermost container holds a block yet; every container below it holds the next one. */
  topHasChild = true;
  /** Sum of the widths of the open list items. */
  itemWidths = 0;
  /** Runs of consecutive block quotes on the stack; `quoteRunStart[r]` is the index where run r (from 1) starts. */
  quoteRuns = 0;
  quoteRunStart = new Int32Array(INITIAL_CONTAINERS);
  /** Sum of the widths of the list items below each run of block quotes. */
  quoteRunItemWidths = new Float64Array(INITIAL_CONTAINERS);

  // The open leaf at the top of the stack.
  leaf = NO_LEAF;
  htmlKind = 0;
  /**
   * Lines of the open paragraph as [start, end) pairs, kept only while it may be link reference definitions
   * (`paragraphLinesEnd` is then the length used, else -1); a line that follows the one before after a line feed
   * extends its pair, so a paragraph outside containers is one pair however long.
   */
  paragraphLines = new Int32Array(16);
  paragraphLinesEnd = -1;
  /** The paragraph's lines read from text that was replaced, joined by `\n`; null when there are none. */
  paragraphPrefix: string | null = null;

  /**
   * The open containers matching has looked at, and at most one more per line: the work that grows with the
   * stack's depth, for tests that check it stays linear in the document's size (a line matches at most two
   * containers per byte of its own, a tab being two list items, and a blank line its list items in one step).
   */
  containerSteps = 0;

  // Per line: how far the open blocks matched.
  matchedContainers = 0;
  /** The runs of block quotes and the sum of list item widths among the matched containers. */
  matchedQuoteRuns = 0;
  matchedItemWidths = 0;
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
    if (this.matchedContainers + 1 < this.depth) {
      // A container left innermost held the one closed above it.
      this.topHasChild = true;
      this.quoteRuns = this.matchedQuoteRuns;
      this.itemWidths = this.matchedItemWidths;
    }
    this.depth = this.matchedContainers + 1;
    this.allClosed = true;
  }

  /** Closes the open leaf, whose last line is `lastLine`; an open fence ends unclosed. */
  closeLeaf(lastLine: number): void {
    if (this.leaf === FENCED) this.finishFence(false, lastLine, false);
    this.leaf = NO_LEAF;
    this.paragraphLinesEnd = -1;
    this.paragraphPrefix = null;
  }

  /**
   * Goes on reading in `text`, the lines that follow those read so far (a document fed a piece at a time): what
   * the open blocks hold of the old text is put together first, since it is kept as offsets into it.
   */
  continueIn(text: string): void {
    this.fence.replaceText(text, this.leaf === FENCED);
    if (this.paragraphLinesEnd > 0) this.paragraphPrefix = this.paragraphText();
    if (this.paragraphLinesEnd !== -1) this.paragraphLinesEnd = 0;
    this.replaceText(text);
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
    if (index === this.kinds.length) {
      this.kinds = doubled(this.kinds);
      this.widths = doubled(this.widths);
    }
    this.kinds[index] = kind;
    this.widths[index] = width;
    this.topHasChild = false;
    if (kind === ITEM) this.itemWidths += width;
    else if (this.kinds[index - 1] !== QUOTE) this.startQuoteRun(index);
    this.depth = index + 1;
    this.matchedContainers = index;
  }

  /** Records a run of block quotes starting at `index`, above the open list items. */
  private startQuoteRun(index: number): void {
    const run = this.quoteRuns + 1;
    if (run === this.quoteRunStart.length) {
      this.quoteRunStart = doubled(this.quoteRunStart);
      this.quoteRunItemWidths = doubled(this.quoteRunItemWidths);
    }
    this.quoteRunStart[run] = index;
    this.quoteRunItemWidths[run] = this.itemWidths;
    this.quoteRuns = run;
  }

  /** Opens a leaf block that may span lines inside the innermost open container. */
  addLeaf(leaf: number): void {
    this.closeLeaf(this.lineNumber - 1);
    this.topHasChild = true;
    this.leaf = leaf;
    this.leafMatched = true;
  }

  /** Adds a heading or thematic break: a child that closes on its own line. */
  addSingleLineLeaf(): void {
    this.closeLeaf(this.lineNumber - 1);
    this.topHasChild = true;
  }

  /** Keeps the rest of the line as a paragraph line while the paragraph may still be definitions only. */
  addParagraphLine(): void {
    const end = this.paragraphLinesEnd;
    if (end === -1) return;
    const start = this.offset;
    const lines = this.paragraphLines;
    if (end > 0 && lines[end - 1] === start - 1 && this.text.charCodeAt(start - 1) === 0x0a) {
      lines[end - 1] = this.lineEnd;
      return;
    }
    if (end === lines.length) this.paragraphLines = doubled(lines);
    this.paragraphLines[end] = start;
    this.paragraphLines[end + 1] = this.lineEnd;
    this.paragraphLinesEnd = end + 2;
  }

  /** CommonMark 4.3: a paragraph of link reference definitions only takes no setext underline. */
  paragraphIsDefinitionsOnly(): boolean {
    if (this.paragraphLinesEnd === -1) return false;
    return isDefinitionsOnly(this.paragraphText());
  }

  /** The open paragraph's lines kept so far, joined by `\n`. */
  private paragraphText(): string {
    const lines = this.paragraphLines;
    const end = this.paragraphLinesEnd;
    let paragraph = this.paragraphPrefix ?? '';
    for (let index = 0; index < end; index += 2)
      paragraph += `${index === 0 && this.paragraphPrefix === null ? '' : '\n'}${this.text.slice(lines[index], lines[index + 1])}`;
    return paragraph;
  }
}

/** A typed array twice as long as `values`, holding them from its start. */
function doubled<T extends Uint8Array | Int32Array | Float64Array>(values: T): T {
  const larger = new (values.constructor as new (length: number) => T)(values.length * 2);
  larger.set(values);
  return larger;
}
