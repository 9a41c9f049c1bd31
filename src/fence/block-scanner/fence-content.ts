import { decodeString } from 'micromark-util-decode-string';
import type { RawFence } from '../read-fenced-blocks.js';

/**
 * The fenced code block being read: its opening fence, and its content so far as one pending slice of the
 * text, so that consecutive lines cost no string concatenation until something breaks the run.
 */
export class FenceContent {
  private readonly text: string;
  fenceChar: '`' | '~' = '`';
  fenceCode = 0;
  fenceLength = 0;
  /** Columns of indentation before the opening fence, removed from each content line (CommonMark 4.5). */
  fenceIndent = 0;
  startLine = 0;
  /** The last line that belongs to the block as micromark sees it. */
  lastLine = 0;
  /** Whether the document's last line held only container prefixes and so was no line of the block. */
  lastLineTokenless = false;
  private rawInfo = '';
  private content = '';
  private pendingStart = -1;
  private pendingEnd = -1;

  constructor(text: string) {
    this.text = text;
  }

  /** Starts a block at an opening fence of `length` characters `code` on `line`, with its trimmed info string. */
  open(code: number, length: number, indent: number, line: number, rawInfo: string): void {
    this.fenceCode = code;
    this.fenceChar = code === 0x60 ? '`' : '~';
    this.fenceLength = length;
    this.fenceIndent = indent;
    this.startLine = line;
    this.lastLine = line;
    this.rawInfo = rawInfo;
    this.content = '';
    this.pendingStart = this.pendingEnd = -1;
  }

  /** Adds `spaces` spaces, the columns left of a tab only partly used as indentation (CommonMark 2.2). */
  addSpaces(spaces: number): void {
    this.flush();
    this.content += ' '.repeat(spaces);
  }

  /** Adds the text [from, to), joining it to the pending slice when it follows on directly. */
  addSlice(from: number, to: number): void {
    if (from !== this.pendingEnd) {
      this.flush();
      this.pendingStart = from;
    }
    this.pendingEnd = to;
  }

  /** The finished block, as {@link readFencedBlocks} would return it. */
  finish(closed: boolean, endLine: number, reachesEnd: boolean): RawFence {
    this.flush();
    const rawInfo = withoutNul(this.rawInfo);
    return {
      fenceChar: this.fenceChar,
      fenceLength: this.fenceLength,
      rawInfo,
      info: rawInfo === '' ? '' : decodeString(rawInfo),
      content: withoutNul(this.content),
      closed,
      reachesEnd,
      startLine: this.startLine,
      endLine,
    };
  }

  private flush(): void {
    if (this.pendingStart >= 0) this.content += this.text.slice(this.pendingStart, this.pendingEnd);
    this.pendingStart = this.pendingEnd = -1;
  }
}

/** micromark (CommonMark 2.3) reads U+0000 as U+FFFD. */
function withoutNul(value: string): string {
  return value.includes('\0') ? value.replaceAll('\0', '\uFFFD') : value;
}
