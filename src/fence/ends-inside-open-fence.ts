import { readFencedBlocks } from './read-fenced-blocks.js';

/** Whether a markdown text, parsed as CommonMark on its own, ends while a fenced code block is still open. */
export function endsInsideOpenFence(markdown: string, deadline = Number.POSITIVE_INFINITY): boolean {
  if (!markdown.includes('```') && !markdown.includes('~~~')) return false;
  return readFencedBlocks(markdown, deadline).some((block) => block.reachesEnd);
}
