import type { FenceParser } from '../project/index.js';
import { forEachFence } from './fence-reader.js';

/** Whether a markdown text, parsed as CommonMark on its own, ends while a fenced code block is still open. */
export function endsInsideOpenFence(
  markdown: string,
  deadline = Number.POSITIVE_INFINITY,
  parser?: FenceParser,
): boolean {
  if (!markdown.includes('```') && !markdown.includes('~~~')) return false;
  let reachesEnd = false;
  forEachFence(markdown, parser, deadline, (block) => {
    if (block.reachesEnd) reachesEnd = true;
  });
  return reachesEnd;
}
