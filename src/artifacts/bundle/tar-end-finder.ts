import { tarModule } from './tar-module.js';

const BLOCK = 512;

/** Why the block walk could not follow the archive: a zero block between entries, or a header it cannot read. */
export type TarWalkProblem = 'stray_zero_block' | 'unreadable_header';

/**
 * Follows a tar stream block by block, from each header's size to the next header, to find where the archive ends:
 * just past its end-of-archive marker, two zero blocks in a header's place (POSIX ustar). Everything after it is
 * padding, which node-tar's Parser would keep concatenating into one buffer, a copy per write.
 */
export class TarEndFinder {
  /** Whether the walk passed the marker. */
  ended = false;
  /** Set when the walk had to stop before the marker; the parser judges the rest. */
  problem: TarWalkProblem | undefined;
  /** Body bytes (a multiple of 512) still to pass before the next header. */
  private skip = 0;
  /** A header block split across chunks. */
  private readonly block = Buffer.alloc(BLOCK);
  private filled = 0;
  private zeroBlocks = 0;

  /**
   * Walks the next chunk; returns how many of its bytes belong to the archive: all of them, or those up to the
   * end of the marker (0 once the marker is behind). After a problem every byte counts as archive.
   */
  take(chunk: Buffer): number {
    if (this.ended) return 0;
    if (this.problem !== undefined) return chunk.length;
    let at = 0;
    while (at < chunk.length) {
      if (this.skip > 0) {
        const passed = Math.min(this.skip, chunk.length - at);
        this.skip -= passed;
        at += passed;
        continue;
      }
      const copied = chunk.copy(
        this.block,
        this.filled,
        at,
        Math.min(chunk.length, at + BLOCK - this.filled),
      );
      this.filled += copied;
      at += copied;
      if (this.filled < BLOCK) break;
      this.filled = 0;
      const seen = this.readBlock();
      if (seen === 'end') {
        this.ended = true;
        return at;
      }
      if (seen !== 'zero' && seen !== 'header') {
        this.problem = seen;
        break;
      }
    }
    return chunk.length;
  }

  /** Reads the block in a header's place: a zero block, the second one in a row (the end), or a header. */
  private readBlock(): 'zero' | 'end' | 'header' | TarWalkProblem {
    if (this.block.every((byte) => byte === 0)) {
      this.zeroBlocks += 1;
      return this.zeroBlocks === 2 ? 'end' : 'zero';
    }
    if (this.zeroBlocks > 0) return 'stray_zero_block';
    const header = new (tarModule().Header)(this.block);
    const { size } = header;
    if (!header.cksumValid || size === undefined || !Number.isSafeInteger(size) || size < 0) {
      return 'unreadable_header';
    }
    this.skip = Math.ceil(size / BLOCK) * BLOCK;
    return 'header';
  }
}
