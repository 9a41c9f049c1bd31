/** How much of an oversized line's start and end is kept, to find its id. */
const EDGE_BYTES = 1024;

/** A line longer than the reader's limit: its size, and its first and last bytes (the rest was never kept). */
export interface OversizedLine {
  readonly bytes: number;
  readonly head: Buffer;
  readonly tail: Buffer;
}

/** What a `LineReader` hands on: each complete line (without its newline), or the news of an oversized one. */
export interface LineSink {
  readonly line: (line: Buffer) => void;
  readonly oversized: (line: OversizedLine) => void;
}

/**
 * Splits a byte stream into newline-terminated lines in linear time: the pieces of a line are kept in a list and
 * joined once, when its newline arrives (the SDK's `ReadBuffer` concatenates the whole buffer on every chunk,
 * quadratic for one large line). A line over `maxBytes` is discarded as it streams, keeping only its edges.
 */
export class LineReader {
  readonly #maxBytes: number;
  readonly #sink: LineSink;
  #pieces: Buffer[] = [];
  #length = 0;
  #oversized: { bytes: number; head: Buffer; tail: Buffer } | undefined;

  constructor(maxBytes: number, sink: LineSink) {
    this.#maxBytes = maxBytes;
    this.#sink = sink;
  }

  /** Takes the next bytes of the stream; hands on every line they complete. */
  push(chunk: Buffer): void {
    let start = 0;
    for (let newline = chunk.indexOf(0x0a); newline !== -1; newline = chunk.indexOf(0x0a, start)) {
      this.#append(chunk.subarray(start, newline));
      start = newline + 1;
      this.#finishLine();
    }
    this.#append(chunk.subarray(start));
  }

  /** The stream ended: a last line without a newline is still a line. */
  end(): void {
    if (this.#length > 0 || this.#oversized !== undefined) this.#finishLine();
  }

  #append(piece: Buffer): void {
    if (piece.length === 0) return;
    const oversized = this.#oversized;
    if (oversized !== undefined) {
      oversized.bytes += piece.length;
      if (oversized.head.length < EDGE_BYTES)
        oversized.head = Buffer.concat([
          oversized.head,
          piece.subarray(0, EDGE_BYTES - oversized.head.length),
        ]);
      oversized.tail = lastBytes(oversized.tail, piece);
      return;
    }
    if (this.#length + piece.length <= this.#maxBytes) {
      this.#pieces.push(piece);
      this.#length += piece.length;
      return;
    }
    // Over the limit: keep the edges (copied, so the chunks they came from can go) and nothing else.
    let head: Buffer = Buffer.alloc(0);
    let tail: Buffer = Buffer.alloc(0);
    for (const held of [...this.#pieces, piece]) {
      if (head.length < EDGE_BYTES) head = Buffer.concat([head, held.subarray(0, EDGE_BYTES - head.length)]);
      tail = lastBytes(tail, held);
    }
    this.#oversized = { bytes: this.#length + piece.length, head, tail };
    this.#pieces = [];
    this.#length = 0;
  }

  #finishLine(): void {
    const oversized = this.#oversized;
    const pieces = this.#pieces;
    const length = this.#length;
    this.#oversized = undefined;
    this.#pieces = [];
    this.#length = 0;
    if (oversized !== undefined) this.#sink.oversized(oversized);
    else
      this.#sink.line(
        pieces.length === 1 && pieces[0] !== undefined ? pieces[0] : Buffer.concat(pieces, length),
      );
  }
}

/** The last `EDGE_BYTES` of `tail` followed by `piece`, as a copy of its own. */
function lastBytes(tail: Buffer, piece: Buffer): Buffer {
  if (piece.length >= EDGE_BYTES) return Buffer.from(piece.subarray(piece.length - EDGE_BYTES));
  const joined = Buffer.concat([tail, piece]);
  return Buffer.from(joined.subarray(Math.max(0, joined.length - EDGE_BYTES)));
}
