/** CommonMark 2.2: tab stops are 4 columns apart. */
const TAB_STOP = 4;

/**
 * One line of a document and a cursor in it, counted both in UTF-16 units and in tab-expanded columns
 * (CommonMark 2.2), with the next non-space character ahead of the cursor; the block scanner's state extends it.
 */
export class LineCursor {
  /** The text being read: the whole document, or (fed a piece at a time) the complete lines not read yet. */
  text: string;
  /** 1-based number of the current line. */
  lineNumber = 0;
  lineStart = 0;
  /** The current line is [its start, lineEnd) without its ending, which runs to nextLineStart. */
  lineEnd = 0;
  nextLineStart = 0;
  /** Positions of the next LF and CR at or after the line (-1: none left), so that finding line ends is linear. */
  private nextLf = -2;
  private nextCr = -2;

  /** The cursor, in UTF-16 units and in columns; partialTab when it stands inside a tab only partly consumed. */
  offset = 0;
  column = 0;
  partialTab = false;
  /** Set by findNextNonspace: the next non-space at or after the cursor, its column, and the columns before it. */
  nextNonspace = 0;
  nextNonspaceColumn = 0;
  indent = 0;
  /** Whether the line holds only spaces and tabs from the cursor on. */
  blank = false;
  /** Where the last search for nextNonspace started: [spaceRunStart, nextNonspace) holds only spaces and tabs. */
  private spaceRunStart = 0;

  constructor(text: string) {
    this.text = text;
  }

  /** Goes on reading in `text`, the lines that follow those read so far (offsets start again at 0). */
  protected replaceText(text: string): void {
    this.text = text;
    this.nextLf = -2;
    this.nextCr = -2;
    this.spaceRunStart = 0;
    this.nextNonspace = -1;
  }

  /** Moves to the line starting at `start`, the cursor at its first column. */
  startLine(start: number): void {
    const text = this.text;
    this.lineNumber++;
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
    this.lineStart = start;
    this.offset = start;
    this.column = 0;
    this.partialTab = false;
    this.nextNonspace = -1;
  }

  /** The character code at `position` of the current line, or -1 past its end. */
  charAt(position: number): number {
    return position < this.lineEnd ? this.text.charCodeAt(position) : -1;
  }

  /** Finds the next non-space at or after the cursor, without moving it. */
  findNextNonspace(): void {
    if (this.offset >= this.spaceRunStart && this.offset <= this.nextNonspace) {
      // Still inside the run of spaces searched last: the same next non-space, at the same tab-expanded column,
      // so that matching N list items on a line indented N levels deep is not O(N²).
      this.indent = this.nextNonspaceColumn - this.column;
      return;
    }
    const text = this.text;
    const end = this.lineEnd;
    let position = this.offset;
    let columns = this.column;
    this.spaceRunStart = position;
    while (position < end) {
      const code = text.charCodeAt(position);
      if (code === 0x20) columns++;
      else if (code === 0x09) columns += TAB_STOP - (columns % TAB_STOP);
      else break;
      position++;
    }
    this.blank = position >= end;
    this.nextNonspace = position;
    this.nextNonspaceColumn = columns;
    this.indent = columns - this.column;
  }

  /** Whether the line ends (without a line ending) in a tab whose columns hold `column` strictly inside them. */
  endsInTabAround(column: number): boolean {
    const text = this.text;
    const end = this.lineEnd;
    if (end !== this.nextLineStart || end === this.lineStart || text.charCodeAt(end - 1) !== 0x09)
      return false;
    let tabStart = 0;
    for (let position = this.lineStart; position < end - 1; position++)
      tabStart += text.charCodeAt(position) === 0x09 ? TAB_STOP - (tabStart % TAB_STOP) : 1;
    return tabStart < column && column < tabStart + TAB_STOP - (tabStart % TAB_STOP);
  }

  /** Moves the cursor to the next non-space found last. */
  advanceNextNonspace(): void {
    this.offset = this.nextNonspace;
    this.column = this.nextNonspaceColumn;
    this.partialTab = false;
  }

  /** Moves the cursor `count` characters, or `count` columns when `columns` (a tab may be partly consumed). */
  advanceOffset(count: number, columns: boolean): void {
    const text = this.text;
    let remaining = count;
    while (remaining > 0 && this.offset < this.lineEnd) {
      if (text.charCodeAt(this.offset) === 0x09) {
        const toTab = TAB_STOP - (this.column % TAB_STOP);
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

/** Whether a character code is a space or a tab, the only whitespace that indents in CommonMark. */
export function isSpaceOrTab(code: number): boolean {
  return code === 0x20 || code === 0x09;
}
