import { decodeString } from 'micromark-util-decode-string';
import type { RawFence } from '../read-fenced-blocks.js';

/** Marks a piece of content that is spaces, not text: its second number is how many. */
const SPACES = -1;
/** Code units turned into a string at a time when content is put together from its pieces. */
const UNITS_PER_STRING = 8192;

/**
 * The fenced code block being read: its opening fence, and its content so far as pieces of the text (and of
 * spaces), two numbers each, put together once the block ends. Consecutive lines join into one piece, so a
 * block outside containers is one slice; inside a block quote or list item it is a piece per line, which as
 * strings concatenated per line kept a million small strings alive through a 1 MB block (GC: superlinear).
 */
export class FenceContent {
  private text: string;
  /** The content read from text that was replaced ({@link FenceContent.replaceText}), put together already. */
  private prefix = '';
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
  private pieces = new Int32Array(16);
  private piecesEnd = 0;

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
    this.piecesEnd = 0;
    this.prefix = '';
  }

  /** Goes on in `text`: the open block's content so far is put together first, since its pieces point into the old. */
  replaceText(text: string, open: boolean): void {
    if (open) this.prefix = this.content();
    this.piecesEnd = 0;
    this.text = text;
  }

  /** The open block's info string as it stands in its opening line, trimmed. */
  get openingRawInfo(): string {
    return this.rawInfo;
  }

  /** Adds `spaces` spaces, the columns left of a tab only partly used as indentation (CommonMark 2.2). */
  addSpaces(spaces: number): void {
    this.addPiece(SPACES, spaces);
  }

  /** Adds the text [from, to), joining it to the piece before when that ends where it starts. */
  addSlice(from: number, to: number): void {
    const end = this.piecesEnd;
    if (end > 0 && this.pieces[end - 1] === from && this.pieces[end - 2] !== SPACES)
      this.pieces[end - 1] = to;
    else this.addPiece(from, to);
  }

  /** The finished block, as {@link readFencedBlocks} would return it. */
  finish(closed: boolean, endLine: number, reachesEnd: boolean): RawFence {
    const rawInfo = withoutNul(this.rawInfo);
    return {
      fenceChar: this.fenceChar,
      fenceLength: this.fenceLength,
      rawInfo,
      info: rawInfo === '' ? '' : decodeString(rawInfo),
      content: withoutNul(this.content()),
      closed,
      reachesEnd,
      startLine: this.startLine,
      endLine,
    };
  }

  private addPiece(first: number, second: number): void {
    if (this.piecesEnd === this.pieces.length) {
      const larger = new Int32Array(this.pieces.length * 2);
      larger.set(this.pieces);
      this.pieces = larger;
    }
    this.pieces[this.piecesEnd++] = first;
    this.pieces[this.piecesEnd++] = second;
  }

  /** The content, from its pieces. */
  private content(): string {
    return this.prefix === '' ? this.pieceContent() : this.prefix + this.pieceContent();
  }

  private pieceContent(): string {
    const pieces = this.pieces;
    const end = this.piecesEnd;
    if (end === 0) return '';
    const [from = 0, to = 0] = pieces;
    if (end === 2 && from !== SPACES) return this.text.slice(from, to);
    let length = 0;
    for (let index = 0; index < end; index += 2)
      length +=
        pieces[index] === SPACES ? (pieces[index + 1] ?? 0) : (pieces[index + 1] ?? 0) - (pieces[index] ?? 0);
    // Copied a code unit at a time: a string per piece would be one more object per line for the GC.
    const units = new Uint16Array(length);
    let at = 0;
    for (let index = 0; index < end; index += 2) {
      const start = pieces[index] ?? 0;
      const stop = pieces[index + 1] ?? 0;
      if (start === SPACES) {
        units.fill(0x20, at, at + stop);
        at += stop;
      } else {
        for (let position = start; position < stop; position++) units[at++] = this.text.charCodeAt(position);
      }
    }
    let content = '';
    for (let start = 0; start < length; start += UNITS_PER_STRING) {
      // apply takes the typed array as it is; a spread would go through its iterator, 5-10 times slower.
      const chunk = units.subarray(start, start + UNITS_PER_STRING) as unknown as number[];
      content += String.fromCharCode.apply(null, chunk);
    }
    return content;
  }
}

/** micromark (CommonMark 2.3) reads U+0000 as U+FFFD. */
function withoutNul(value: string): string {
  return value.includes('\0') ? value.replaceAll('\0', '\uFFFD') : value;
}
