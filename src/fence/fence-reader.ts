import { DEFAULT_FENCE_PARSER, type FenceParser } from '../project/index.js';
import { readFencedBlocks, type RawFence } from './read-fenced-blocks.js';
import { scanFencedBlocks } from './scan-fenced-blocks.js';

/** The function that reads a document's fenced code blocks with the chosen block parser (default: the scanner). */
export function fenceReader(
  parser: FenceParser = DEFAULT_FENCE_PARSER,
): (markdown: string, deadline?: number) => RawFence[] {
  return parser === 'micromark' ? readFencedBlocks : scanFencedBlocks;
}
