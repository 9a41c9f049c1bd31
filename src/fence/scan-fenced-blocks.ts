import { BlockScan, FENCED, incorporateLine } from './block-scanner/index.js';
import { ParseDeadlineExceeded, type RawFence } from './read-fenced-blocks.js';

/** Lines scanned between two looks at the clock. */
const LINES_PER_DEADLINE_CHECK = 4096;

/**
 * Reads every fenced code block of a markdown document with a one-pass CommonMark block scanner, returning
 * exactly what {@link readFencedBlocks} returns; throws {@link ParseDeadlineExceeded} once `deadline` passes.
 */
export function scanFencedBlocks(markdown: string, deadline = Number.POSITIVE_INFINITY): RawFence[] {
  const found: RawFence[] = [];
  forEachScannedFence(markdown, (fence) => found.push(fence), deadline);
  return found;
}

/**
 * Hands `onFence` each fenced code block of a markdown document as the scanner ends it, in document order:
 * {@link scanFencedBlocks} without holding every block until the end (a caller that keeps only candidates
 * then never holds the rest: a 100 MB document peaks about 60 MB lower).
 */
export function forEachScannedFence(
  markdown: string,
  onFence: (fence: RawFence) => void,
  deadline = Number.POSITIVE_INFINITY,
): void {
  const scan = new BlockScan(markdown, onFence);
  // micromark (and cmark) skip a leading byte order mark without counting it as a line.
  let start = markdown.charCodeAt(0) === 0xfeff ? 1 : 0;
  while (start < markdown.length) {
    // Moving to the line here, not in incorporateLine, leaves V8 the inlining budget for the leaf steps there.
    scan.startLine(start);
    if (scan.lineNumber % LINES_PER_DEADLINE_CHECK === 0 && performance.now() > deadline)
      throw new ParseDeadlineExceeded();
    incorporateLine(scan);
    start = scan.nextLineStart;
  }
  if (scan.leaf === FENCED) scan.finishFence(false, scan.fence.lastLine, !scan.fence.lastLineTokenless);
}
