import { decodeString } from 'micromark-util-decode-string';
import { htmlBlockEnds, htmlBlockKind, isDefinitionsOnly } from './block-scanner/index.js';
import { ParseDeadlineExceeded, type RawFence } from './read-fenced-blocks.js';

const QUOTE = 1;
const ITEM = 2;

const NO_LEAF = 0;
const PARAGRAPH = 1;
const FENCED = 2;
const INDENTED = 3;
const HTML = 4;

/** Lines scanned between two looks at the clock. */
const LINES_PER_DEADLINE_CHECK = 4096;

/** CommonMark 4.4: four columns of indentation make indented code. */
const CODE_INDENT = 4;

/**
 * Reads every fenced code block of a markdown document with a one-pass CommonMark block scanner, returning
 * exactly what {@link readFencedBlocks} returns; throws {@link ParseDeadlineExceeded} once `deadline` passes.
 */
export function scanFencedBlocks(markdown: string, deadline = Number.POSITIVE_INFINITY): RawFence[] {
  return new BlockScanner(markdown, deadline).scan();
}

/**
 * The block structure of one document, one line at a time, as the spec's appendix "A parsing strategy" (and
 * commonmark.js) describes: a stack of open containers, one open leaf at its top.
 */
class BlockScanner {
  private readonly text: string;
  private readonly deadline: number;
  private readonly found: RawFence[] = [];

  // The current line: [lineStart, lineEnd) without its ending, which runs to nextLineStart.
  private lineNumber = 0;
  private lineEnd = 0;
  private nextLineStart = 0;
  private nextLf = -2;
  private nextCr = -2;

  // The cursor within the line, in UTF-16 units and in tab-expanded columns.
  private offset = 0;
  private column = 0;
  private partialTab = false;
  private nextNonspace = 0;
  private nextNonspaceColumn = 0;
  private indent = 0;
  private blank = false;

  // Open containers; index 0 is the document. `firstQuote[i]` is the lowest quote index at or below i.
  private depth = 1;
  private readonly kinds: number[] = [0];
  private readonly widths: number[] = [0];
  private readonly hasChild: boolean[] = [true];
  private readonly firstQuote: number[] = [Number.POSITIVE_INFINITY];
  /** Sum of list item widths at or below each index, for what micromark leaves of a blank line. */
  private readonly itemWidthTotal: number[] = [0];

  // The open leaf at the top of the stack.
  private leaf = NO_LEAF;
  private htmlKind = 0;
  private fenceChar: '`' | '~' = '`';
  private fenceCode = 0;
  private fenceLength = 0;
  private fenceOffset = 0;
  private fenceStartLine = 0;
  private fenceLastLine = 0;
  private rawInfo = '';
  private content = '';
  private pendingStart = 0;
  private pendingEnd = 0;
  private lastLineTokenless = false;
  /** Lines of the open paragraph as [start, end) pairs, kept only while it may be link reference definitions. */
  private paragraphLines: number[] | undefined;

  // Per line: how far the open blocks matched.
  private matchedContainers = 0;
  /** Whitespace columns of this line left after its list items as micromark counts them (one width each). */
  private blankRemainderColumns = -1;
  private onlyPrefixes = false;
  /** Where the thematic break check last failed on this line, so `- - - …x` is not rescanned per marker. */
  private thematicFailLine = 0;
  private thematicFailCode = 0;
  private thematicFailAt = 0;
  private leafMatched = false;
  private allClosed = true;

  constructor(text: string, deadline: number) {
    this.text = text;
    this.deadline = deadline;
  }

  scan(): RawFence[] {
    const text = this.text;
    // micromark (and cmark) skip a leading byte order mark without counting it as a line.
    let start = text.charCodeAt(0) === 0xfeff ? 1 : 0;
    while (start < text.length) {
      this.lineNumber++;
      this.findLineEnd(start);
      if (this.lineNumber % LINES_PER_DEADLINE_CHECK === 0 && performance.now() > this.deadline)
        throw new ParseDeadlineExceeded();
      this.incorporateLine(start);
      start = this.nextLineStart;
    }
    if (this.leaf === FENCED) this.finishFence(false, this.fenceLastLine, !this.lastLineTokenless);
    return this.found;
  }

  /** Sets lineEnd and nextLineStart for the line at `start`; LF and CR positions are cached, so this is linear. */
  private findLineEnd(start: number): void {
    const text = this.text;
    if (this.nextLf !== -1 && this.nextLf < start) this.nextLf = text.indexOf('\n', start);
    if (this.nextCr !== -1 && this.nextCr < start) this.nextCr = text.indexOf('\r', start);
    const lf = this.nextLf;
    const cr = this.nextCr;
    if (cr !== -1 && (lf === -1 || cr < lf)) {
      this.lineEnd = cr;
      this.nextLineStart = lf === cr + 1 ? cr + 2 : cr + 1;
    } else if (lf !== -1) {
      this.lineEnd = lf;
      this.nextLineStart = lf + 1;
    } else {
      this.lineEnd = text.length;
      this.nextLineStart = text.length;
    }
  }

  private incorporateLine(lineStart: number): void {
    this.offset = lineStart;
    this.column = 0;
    this.partialTab = false;
    this.matchContainers();
    // micromark gives container prefixes no token inside the block, so a line of prefixes only is no line of it.
    this.onlyPrefixes =
      this.blankRemainderColumns === -1
        ? this.offset >= this.lineEnd && !this.partialTab
        : this.blankRemainderColumns <= 0;
    if (this.leaf !== NO_LEAF && this.matchedContainers === this.depth - 1) {
      this.findNextNonspace();
      if (this.leaf === FENCED && this.isClosingFence()) {
        this.finishFence(true, this.lineNumber, false);
        return;
      }
      this.leafMatched = this.continueLeaf();
    } else {
      this.leafMatched = false;
    }
    this.allClosed = this.matchedContainers === this.depth - 1 && (this.leaf === NO_LEAF || this.leafMatched);
    this.openBlocks();
  }

  /** Matches the line against each open container in turn (CommonMark 5: container continuation). */
  private matchContainers(): void {
    this.findNextNonspace();
    const top = this.depth - 1;
    if (this.blank) {
      // A blank line continues every list item up to the first block quote, except an item that is still
      // empty (CommonMark 5.2), without consuming anything per item: depth costs nothing on blank lines.
      const firstQuote = this.firstQuote[top] ?? Number.POSITIVE_INFINITY;
      let matched = firstQuote > top ? top : firstQuote - 1;
      if (matched === top && top >= 1 && this.hasChild[top] !== true) matched = top - 1;
      this.blankRemainderColumns = -1;
      if (matched >= 1) {
        this.blankRemainderColumns = this.nextNonspaceColumn - (this.itemWidthTotal[matched] ?? 0);
        this.advanceNextNonspace();
      }
      this.matchedContainers = matched;
      return;
    }
    let matched = 0;
    let blankFrom = -1;
    let blankColumn = 0;
    this.blankRemainderColumns = -1;
    for (let index = 1; index <= top; index++) {
      if (index > 1) this.findNextNonspace();
      if (this.kinds[index] === QUOTE) {
        if (this.indent >= CODE_INDENT || this.charAt(this.nextNonspace) !== 0x3e) break;
        this.advanceNextNonspace();
        this.advanceOffset(1, false);
        if (isSpaceOrTab(this.charAt(this.offset))) this.advanceOffset(1, true);
      } else if (this.restIsBlank()) {
        if (this.hasChild[index] !== true) break;
        if (blankFrom === -1) {
          blankFrom = index;
          blankColumn = this.column;
        }
        this.advanceNextNonspace();
      } else {
        const width = this.widths[index] ?? 0;
        if (this.indent < width) break;
        this.advanceOffset(width, true);
      }
      matched = index;
    }
    if (blankFrom !== -1) {
      const widths = (this.itemWidthTotal[matched] ?? 0) - (this.itemWidthTotal[blankFrom - 1] ?? 0);
      this.blankRemainderColumns = this.nextNonspaceColumn - blankColumn - widths;
    }
    this.matchedContainers = matched;
  }

  /** Whether the open leaf continues on this line (cursor at its next non-space), consuming its indentation. */
  private continueLeaf(): boolean {
    switch (this.leaf) {
      case FENCED: {
        // CommonMark 4.5: up to the opening fence's indentation is removed from each content line.
        for (
          let remaining = this.fenceOffset;
          remaining > 0 && isSpaceOrTab(this.charAt(this.offset));
          remaining--
        )
          this.advanceOffset(1, true);
        return true;
      }
      case INDENTED:
        if (this.indent >= CODE_INDENT) this.advanceOffset(CODE_INDENT, true);
        else if (this.blank) this.advanceNextNonspace();
        else return false;
        return true;
      case HTML:
        return !(this.blank && (this.htmlKind === 6 || this.htmlKind === 7));
      default:
        return !this.blank;
    }
  }

  /** Tries block starts after the matched blocks, then gives the rest of the line to the right block. */
  private openBlocks(): void {
    let lineDone = false;
    let paragraphIsContainer = this.leafMatched && this.leaf === PARAGRAPH;
    let startedLeaf = false;
    // An open code or HTML block takes the line as it is; otherwise new blocks may start on it.
    const leafTakesLine = this.leafMatched && this.leaf !== PARAGRAPH;
    while (!leafTakesLine) {
      this.findNextNonspace();
      const indented = this.indent >= CODE_INDENT;
      const code = this.charAt(this.nextNonspace);
      if (!indented && !mayStartBlock(code)) {
        this.advanceNextNonspace();
        break;
      }
      if (!indented && code === 0x3e /* > */) {
        this.advanceNextNonspace();
        this.advanceOffset(1, false);
        if (isSpaceOrTab(this.charAt(this.offset))) this.advanceOffset(1, true);
        this.closeUnmatched();
        this.addContainer(QUOTE, 0);
        paragraphIsContainer = false;
        continue;
      }
      if (!indented && code === 0x23 /* # */ && this.isAtxHeading()) {
        this.closeUnmatched();
        this.addSingleLineLeaf();
        lineDone = true;
        break;
      }
      if (!indented && (code === 0x60 || code === 0x7e) && this.openFence(code)) {
        startedLeaf = true;
        lineDone = true;
        break;
      }
      if (!indented && code === 0x3c /* < */) {
        const kind = htmlBlockKind(this.text, this.nextNonspace, this.lineEnd);
        const mayInterrupt =
          !paragraphIsContainer && !(!this.allClosed && !this.blank && this.leaf === PARAGRAPH);
        if (kind !== 0 && (kind < 7 || mayInterrupt)) {
          this.closeUnmatched();
          this.addLeaf(HTML);
          this.htmlKind = kind;
          startedLeaf = true;
          break;
        }
      }
      if (
        !indented &&
        paragraphIsContainer &&
        (code === 0x3d || code === 0x2d) &&
        this.isSetextUnderline(code)
      ) {
        if (!this.paragraphIsDefinitionsOnly()) {
          this.closeUnmatched();
          this.closeLeaf(this.lineNumber);
          lineDone = true;
          break;
        }
      }
      if (!indented && (code === 0x2a || code === 0x2d || code === 0x5f) && this.isThematicBreak(code)) {
        this.closeUnmatched();
        this.addSingleLineLeaf();
        lineDone = true;
        break;
      }
      if (!indented) {
        const width = this.listItemWidth(code, paragraphIsContainer);
        if (width !== 0) {
          this.closeUnmatched();
          this.addContainer(ITEM, width);
          paragraphIsContainer = false;
          continue;
        }
      }
      if (indented && this.leaf !== PARAGRAPH && !this.blank) {
        this.advanceOffset(CODE_INDENT, true);
        this.closeUnmatched();
        this.addLeaf(INDENTED);
        startedLeaf = true;
        lineDone = true;
        break;
      }
      this.advanceNextNonspace();
      break;
    }
    if (!this.allClosed && !this.blank && this.leaf === PARAGRAPH) {
      // CommonMark 5.1: a lazy continuation line of a paragraph.
      this.addParagraphLine();
      return;
    }
    this.closeUnmatched();
    if (lineDone && !startedLeaf) return;
    if (startedLeaf && this.leaf !== HTML) return;
    if (this.leaf === FENCED) {
      this.addContentLine();
    } else if (this.leaf === HTML) {
      if (htmlBlockEnds(this.htmlKind, this.text, this.offset, this.lineEnd)) this.leaf = NO_LEAF;
    } else if (this.leaf === PARAGRAPH) {
      this.addParagraphLine();
    } else if (this.leaf === NO_LEAF && !this.blank && this.offset < this.lineEnd) {
      this.addLeaf(PARAGRAPH);
      this.advanceNextNonspace();
      this.paragraphLines = this.charAt(this.offset) === 0x5b /* [ */ ? [] : undefined;
      this.addParagraphLine();
    }
  }

  /** Opens a fenced code block if the line has a fence at its next non-space (CommonMark 4.5). */
  private openFence(code: number): boolean {
    const text = this.text;
    const end = this.lineEnd;
    let position = this.nextNonspace;
    while (position < end && text.charCodeAt(position) === code) position++;
    const length = position - this.nextNonspace;
    if (length < 3) return false;
    const infoStart = position;
    if (code === 0x60) {
      // CommonMark 4.5: the info string of a backtick fence may not contain a backtick.
      for (let scan = infoStart; scan < end; scan++) if (text.charCodeAt(scan) === 0x60) return false;
    }
    this.closeUnmatched();
    const fenceOffset = this.indent;
    this.addLeaf(FENCED);
    this.fenceCode = code;
    this.fenceChar = code === 0x60 ? '`' : '~';
    this.fenceLength = length;
    this.fenceOffset = fenceOffset;
    this.fenceStartLine = this.lineNumber;
    this.fenceLastLine = this.lineNumber;
    let infoFrom = infoStart;
    let infoTo = end;
    while (infoFrom < infoTo && isSpaceOrTab(text.charCodeAt(infoFrom))) infoFrom++;
    while (infoTo > infoFrom && isSpaceOrTab(text.charCodeAt(infoTo - 1))) infoTo--;
    this.rawInfo = text.slice(infoFrom, infoTo);
    this.content = '';
    this.pendingStart = this.pendingEnd = -1;
    return true;
  }

  /** Whether the line (cursor at its next non-space) closes the open fence (CommonMark 4.5). */
  private isClosingFence(): boolean {
    if (this.indent >= CODE_INDENT) return false;
    const text = this.text;
    const end = this.lineEnd;
    let position = this.nextNonspace;
    while (position < end && text.charCodeAt(position) === this.fenceCode) position++;
    if (position - this.nextNonspace < this.fenceLength) return false;
    while (position < end && isSpaceOrTab(text.charCodeAt(position))) position++;
    return position === end;
  }

  /** Adds the rest of the line, with its own ending, to the open fence's content. */
  private addContentLine(): void {
    // A last line without an ending that holds only container prefixes ends the block before it, as micromark sees it.
    if (this.nextLineStart !== this.lineEnd || !this.onlyPrefixes) this.fenceLastLine = this.lineNumber;
    else this.lastLineTokenless = true;
    if (this.partialTab) {
      // CommonMark 2.2: a tab only partly used as indentation leaves its remaining columns as spaces.
      this.flushContent();
      this.content += ' '.repeat(4 - (this.column % 4));
      this.offset++;
    }
    if (this.offset !== this.pendingEnd) {
      this.flushContent();
      this.pendingStart = this.offset;
    }
    this.pendingEnd = this.nextLineStart;
  }

  private flushContent(): void {
    if (this.pendingStart >= 0) this.content += this.text.slice(this.pendingStart, this.pendingEnd);
    this.pendingStart = this.pendingEnd = -1;
  }

  private finishFence(closed: boolean, endLine: number, reachesEnd: boolean): void {
    this.flushContent();
    const rawInfo = withoutNul(this.rawInfo);
    this.found.push({
      fenceChar: this.fenceChar,
      fenceLength: this.fenceLength,
      rawInfo,
      info: rawInfo === '' ? '' : decodeString(rawInfo),
      content: withoutNul(this.content),
      closed,
      reachesEnd,
      startLine: this.fenceStartLine,
      endLine,
    });
    this.leaf = NO_LEAF;
  }

  private addParagraphLine(): void {
    const lines = this.paragraphLines;
    if (lines !== undefined) lines.push(this.offset, this.lineEnd);
  }

  /** CommonMark 4.3: a paragraph of link reference definitions only takes no setext underline. */
  private paragraphIsDefinitionsOnly(): boolean {
    const lines = this.paragraphLines;
    if (lines === undefined) return false;
    let paragraph = '';
    for (let index = 0; index < lines.length; index += 2)
      paragraph += `${index === 0 ? '' : '\n'}${this.text.slice(lines[index], lines[index + 1])}`;
    return isDefinitionsOnly(paragraph);
  }

  /** Closes the blocks this line did not continue (once per line, before anything is added). */
  private closeUnmatched(): void {
    if (this.allClosed) return;
    if (this.leaf !== NO_LEAF && !this.leafMatched) this.closeLeaf(this.lineNumber - 1);
    this.depth = this.matchedContainers + 1;
    this.allClosed = true;
  }

  private closeLeaf(lastLine: number): void {
    if (this.leaf === FENCED) this.finishFence(false, lastLine, false);
    this.leaf = NO_LEAF;
    this.paragraphLines = undefined;
  }

  private addContainer(kind: number, width: number): void {
    this.closeLeaf(this.lineNumber - 1);
    const index = this.depth;
    this.hasChild[index - 1] = true;
    this.kinds[index] = kind;
    this.widths[index] = width;
    this.hasChild[index] = false;
    this.itemWidthTotal[index] = (this.itemWidthTotal[index - 1] ?? 0) + (kind === ITEM ? width : 0);
    this.firstQuote[index] =
      kind === QUOTE
        ? Math.min(index, this.firstQuote[index - 1] ?? Number.POSITIVE_INFINITY)
        : (this.firstQuote[index - 1] ?? Number.POSITIVE_INFINITY);
    this.depth = index + 1;
    this.matchedContainers = index;
  }

  private addLeaf(leaf: number): void {
    this.closeLeaf(this.lineNumber - 1);
    this.hasChild[this.depth - 1] = true;
    this.leaf = leaf;
    this.leafMatched = true;
  }

  /** A heading or thematic break: a child that closes on its own line. */
  private addSingleLineLeaf(): void {
    this.closeLeaf(this.lineNumber - 1);
    this.hasChild[this.depth - 1] = true;
  }

  private isAtxHeading(): boolean {
    let position = this.nextNonspace;
    while (position < this.lineEnd && this.text.charCodeAt(position) === 0x23) position++;
    const level = position - this.nextNonspace;
    return level <= 6 && (position === this.lineEnd || isSpaceOrTab(this.text.charCodeAt(position)));
  }

  private isSetextUnderline(code: number): boolean {
    let position = this.nextNonspace;
    while (position < this.lineEnd && this.text.charCodeAt(position) === code) position++;
    while (position < this.lineEnd && isSpaceOrTab(this.text.charCodeAt(position))) position++;
    return position === this.lineEnd;
  }

  private isThematicBreak(code: number): boolean {
    if (
      this.thematicFailLine === this.lineNumber &&
      this.thematicFailCode === code &&
      this.thematicFailAt >= this.nextNonspace
    )
      return false;
    let count = 0;
    for (let position = this.nextNonspace; position < this.lineEnd; position++) {
      const current = this.text.charCodeAt(position);
      if (current === code) count++;
      else if (!isSpaceOrTab(current)) {
        this.thematicFailLine = this.lineNumber;
        this.thematicFailCode = code;
        this.thematicFailAt = position;
        return false;
      }
    }
    return count >= 3;
  }

  /**
   * The content width of a list item starting at the next non-space (CommonMark 5.2), moving the cursor past
   * its marker and the space after it; 0 when no list item starts there.
   */
  private listItemWidth(code: number, interruptsParagraph: boolean): number {
    const text = this.text;
    const end = this.lineEnd;
    let markerEnd = this.nextNonspace;
    if (code === 0x2a || code === 0x2b || code === 0x2d) {
      markerEnd++;
    } else if (code >= 0x30 && code <= 0x39) {
      while (markerEnd < end && markerEnd - this.nextNonspace < 10 && isDigit(text.charCodeAt(markerEnd)))
        markerEnd++;
      const digits = markerEnd - this.nextNonspace;
      const delimiter = markerEnd < end ? text.charCodeAt(markerEnd) : -1;
      if (digits > 9 || (delimiter !== 0x2e && delimiter !== 0x29)) return 0;
      // micromark: only an item numbered exactly 1 may interrupt a paragraph.
      if (interruptsParagraph && (digits !== 1 || code !== 0x31)) return 0;
      markerEnd++;
    } else {
      return 0;
    }
    const after = markerEnd < end ? text.charCodeAt(markerEnd) : -1;
    if (after !== -1 && !isSpaceOrTab(after)) return 0;
    if (interruptsParagraph) {
      let position = markerEnd;
      while (position < end && isSpaceOrTab(text.charCodeAt(position))) position++;
      if (position === end) return 0;
    }
    const markerOffset = this.indent;
    const markerLength = markerEnd - this.nextNonspace;
    this.advanceNextNonspace();
    this.advanceOffset(markerLength, true);
    const spacesStartColumn = this.column;
    const spacesStartOffset = this.offset;
    do {
      this.advanceOffset(1, true);
    } while (this.column - spacesStartColumn < 5 && isSpaceOrTab(this.charAt(this.offset)));
    const blankItem = this.offset >= end;
    const spacesAfterMarker = this.column - spacesStartColumn;
    if (spacesAfterMarker >= 5 || spacesAfterMarker < 1 || blankItem) {
      this.column = spacesStartColumn;
      this.offset = spacesStartOffset;
      this.partialTab = false;
      if (isSpaceOrTab(this.charAt(this.offset))) this.advanceOffset(1, true);
      return markerOffset + markerLength + 1;
    }
    return markerOffset + markerLength + spacesAfterMarker;
  }

  private charAt(position: number): number {
    return position < this.lineEnd ? this.text.charCodeAt(position) : -1;
  }

  private findNextNonspace(): void {
    const text = this.text;
    const end = this.lineEnd;
    let position = this.offset;
    let columns = this.column;
    while (position < end) {
      const code = text.charCodeAt(position);
      if (code === 0x20) columns++;
      else if (code === 0x09) columns += 4 - (columns % 4);
      else break;
      position++;
    }
    this.blank = position >= end;
    this.nextNonspace = position;
    this.nextNonspaceColumn = columns;
    this.indent = columns - this.column;
  }

  /** Whether the line is blank from its next non-space on (a method, since the cursor moves under the compiler). */
  private restIsBlank(): boolean {
    return this.blank;
  }

  private advanceNextNonspace(): void {
    this.offset = this.nextNonspace;
    this.column = this.nextNonspaceColumn;
    this.partialTab = false;
  }

  /** Moves the cursor `count` characters, or `count` columns when `columns` (a tab may be partly consumed). */
  private advanceOffset(count: number, columns: boolean): void {
    const text = this.text;
    let remaining = count;
    while (remaining > 0 && this.offset < this.lineEnd) {
      if (text.charCodeAt(this.offset) === 0x09) {
        const toTab = 4 - (this.column % 4);
        if (columns) {
          this.partialTab = toTab > remaining;
          const advance = toTab > remaining ? remaining : toTab;
          this.column += advance;
          if (!this.partialTab) this.offset++;
          remaining -= advance;
        } else {
          this.partialTab = false;
          this.column += toTab;
          this.offset++;
          remaining--;
        }
      } else {
        this.partialTab = false;
        this.offset++;
        this.column++;
        remaining--;
      }
    }
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

function isSpaceOrTab(code: number): boolean {
  return code === 0x20 || code === 0x09;
}

function isDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}

/** micromark (CommonMark 2.3) reads U+0000 as U+FFFD. */
function withoutNul(value: string): string {
  return value.includes('\0') ? value.replaceAll('\0', '\uFFFD') : value;
}
