import { DEFAULT_FENCE_PARSER, type FenceParser } from '../project/index.js';
import { readFencedBlocks, type RawFence } from './read-fenced-blocks.js';
import { forEachScannedFence } from './scan-fenced-blocks.js';

/**
 * Hands `onFence` each fenced code block of a markdown document, in document order, read by the chosen block
 * parser (default: the scanner, which hands each block over as it ends; micromark reads them all first).
 */
export function forEachFence(
  markdown: string,
  parser: FenceParser = DEFAULT_FENCE_PARSER,
  deadline: number,
  onFence: (fence: RawFence) => void,
): void {
  if (parser !== 'micromark') {
    forEachScannedFence(markdown, onFence, deadline);
    return;
  }
  for (const fence of readFencedBlocks(markdown, deadline)) onFence(fence);
}
