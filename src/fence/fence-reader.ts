import { DEFAULT_FENCE_PARSER, type FenceParser } from '../project/index.js';
import { readFencedBlocks, type RawFence } from './read-fenced-blocks.js';
import { forEachScannedFence } from './scan-fenced-blocks.js';

/**
 * Hands `onFence` each fenced code block of a markdown document, in document order, read by the chosen block
 * parser (undefined: the default; the scanner hands each block over as it ends, micromark reads them all
 * first).
 */
export function forEachFence(
  markdown: string,
  parser: FenceParser | undefined,
  deadline: number,
  onFence: (fence: RawFence) => void,
): void {
  if ((parser ?? DEFAULT_FENCE_PARSER) === 'micromark') {
    for (const fence of readFencedBlocks(markdown, deadline)) onFence(fence);
    return;
  }
  forEachScannedFence(markdown, onFence, deadline);
}
