import { BlockScan, FENCED, incorporateLine } from './block-scanner/index.js';
import type { FenceBlock } from './fence-block.js';
import { decodeString } from 'micromark-util-decode-string';
import { fenceBlockOf, isCandidate, judgeFence } from './judge-fence.js';
import { parseInfoString } from './parse-info-string.js';
import type { RawFence } from './read-fenced-blocks.js';

/** A candidate block whose opening fence line is complete and whose end is not yet known. */
export interface OpenedBlock {
  /** The index it will have among the document's candidates. */
  readonly index: number;
  readonly lang: string;
  readonly declaredFile: string;
}

/**
 * A document fed in chunks to the same one-pass block scanner {@link scanFences} runs, handing back each
 * candidate block the moment the line that ends it is complete; the blocks it hands back over the whole feed
 * are exactly those `scanFences` returns for the whole text. The scanner's state is kept from one chunk to the
 * next (what open blocks hold of earlier text is put together first), so each line is read once. Only complete
 * lines are ever read: the last
 * partial line is held (a line ending in `\r` too, until the next character says whether `\n` follows), so a
 * surrogate pair or a `\r\n` split across chunks is joined before it is read.
 */
export class FenceFeed {
  /** The partial last line, and whether it ends in `\r` (a line ending only once the next character is known). */
  private partial = '';
  private partialEndsInCr = false;
  private readonly fences: RawFence[] = [];
  private readonly scan = new BlockScan('', (fence) => this.fences.push(fence));
  private atDocumentStart = true;
  private nextIndex = 0;
  private ended = false;
  /** The candidate block open after the lines read last, if any. */
  private open: OpenedBlock | undefined;
  /** The opening line and candidate index `open` was read for. */
  private openLine = -1;
  private openIndex = -1;

  /** The candidate block whose opening fence line was read and whose end was not. */
  get openBlock(): OpenedBlock | undefined {
    return this.open;
  }

  /** Feeds a chunk of the document; returns the candidate blocks that its complete lines ended. */
  push(chunk: string): readonly FenceBlock[] {
    if (this.ended) throw new Error('FenceFeed.push after end(): the document is already complete');
    // Most chunks of a model's answer end no line: they only lengthen the partial line (unless it ends in `\r`,
    // which the chunk's first character completes).
    if (!this.partialEndsInCr && chunk.indexOf('\n') === -1 && chunk.indexOf('\r') === -1) {
      this.partial += chunk;
      return NO_BLOCKS;
    }
    // The partial line holds no line ending but perhaps a last `\r`: the complete lines end in this chunk, or,
    // when it has none, after that `\r` (the chunk's first character is not `\n`).
    const inChunk = completeLinesEnd(chunk);
    let lines: string;
    if (inChunk > 0) {
      lines = this.partial + chunk.slice(0, inChunk);
      this.partial = chunk.slice(inChunk);
    } else {
      lines = this.partialEndsInCr ? this.partial : '';
      this.partial = this.partialEndsInCr ? chunk : this.partial + chunk;
    }
    this.partialEndsInCr = this.partial.charCodeAt(this.partial.length - 1) === 0x0d;
    if (lines === '') return NO_BLOCKS;
    return this.read(lines, false);
  }

  /**
   * Ends the document (its last line may lack an ending); returns every candidate block not yet handed back.
   * `partial: 'drop'` ends it at its last complete line instead, as a document cut off there (the partial last
   * line, perhaps a closing fence without its ending, is not read).
   */
  end(partial: 'read' | 'drop' = 'read'): FenceBlock[] {
    if (this.ended) return [];
    this.ended = true;
    const rest = partial === 'read' ? this.partial : '';
    this.partial = '';
    return this.read(rest, true);
  }

  /** Reads complete lines (at the end, the last line too) with the one scanner, its state kept between calls. */
  private read(lines: string, atEnd: boolean): FenceBlock[] {
    const scan = this.scan;
    scan.continueIn(lines);
    // micromark (and cmark) skip a leading byte order mark without counting it as a line.
    let start = this.atDocumentStart && lines.charCodeAt(0) === 0xfeff ? 1 : 0;
    if (lines !== '') this.atDocumentStart = false;
    while (start < lines.length) {
      scan.startLine(start);
      incorporateLine(scan);
      start = scan.nextLineStart;
    }
    if (atEnd && scan.leaf === FENCED)
      scan.finishFence(false, scan.fence.lastLine, !scan.fence.lastLineTokenless);
    const found: FenceBlock[] = [];
    for (const fence of this.fences) found.push(...this.judge(fence));
    this.fences.length = 0;
    if (atEnd || scan.leaf !== FENCED) this.open = undefined;
    // A fence stays open over many chunks: its opening line is read once, not on every chunk.
    else if (this.openLine !== scan.fence.startLine || this.openIndex !== this.nextIndex) {
      this.openLine = scan.fence.startLine;
      this.openIndex = this.nextIndex;
      this.open = this.opened(scan.fence.openingRawInfo, scan.fence.fenceLength);
    }
    return found;
  }

  /** The open fence as an opened block, when it is a candidate. */
  private opened(rawInfo: string, fenceLength: number): OpenedBlock | undefined {
    const info = rawInfo === '' ? '' : decodeString(rawInfo.replaceAll('\0', '\uFFFD'));
    if (!isCandidate({ info })) return undefined;
    const { lang, declaredFile } = parseInfoString(info, '`'.repeat(fenceLength));
    return { index: this.nextIndex, lang, declaredFile };
  }

  /** The block {@link scanFences} makes of a raw fence, numbered among the document's candidates. */
  private judge(fence: RawFence): FenceBlock[] {
    if (!isCandidate(fence)) return [];
    return [fenceBlockOf(fence, judgeFence(fence), this.nextIndex++)];
  }
}

/** What a chunk that completes no line ends: no block (one array for them all, never changed). */
const NO_BLOCKS: readonly FenceBlock[] = Object.freeze([]);

/** Where the complete lines of `text` end: after its last `\n`, or after a `\r` that is not its last character. */
function completeLinesEnd(text: string): number {
  const lf = text.lastIndexOf('\n');
  let cr = text.lastIndexOf('\r');
  // CommonMark 2.1: `\r\n` is one line ending, so a trailing `\r` ends its line only once the next character is known.
  if (cr === text.length - 1) cr = cr === 0 ? -1 : text.lastIndexOf('\r', cr - 1);
  return Math.max(lf, cr) + 1;
}
