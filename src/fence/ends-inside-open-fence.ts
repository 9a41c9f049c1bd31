import type { FenceParser } from './fence-block.js';
import { readFencedBlocks } from './read-fenced-blocks.js';
import { scanFencedBlocks } from './scan-fenced-blocks.js';

/** Whether a markdown text, parsed as CommonMark on its own, ends while a fenced code block is still open. */
export function endsInsideOpenFence(
  markdown: string,
  deadline = Number.POSITIVE_INFINITY,
  parser: FenceParser = 'micromark',
): boolean {
  if (!markdown.includes('```') && !markdown.includes('~~~')) return false;
  const read = parser === 'scanner' ? scanFencedBlocks : readFencedBlocks;
  return read(markdown, deadline).some((block) => block.reachesEnd);
}
