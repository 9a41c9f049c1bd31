import type { FenceParser } from '../project/index.js';
import { fenceReader } from './fence-reader.js';

/** Whether a markdown text, parsed as CommonMark on its own, ends while a fenced code block is still open. */
export function endsInsideOpenFence(
  markdown: string,
  deadline = Number.POSITIVE_INFINITY,
  parser?: FenceParser,
): boolean {
  if (!markdown.includes('```') && !markdown.includes('~~~')) return false;
  return fenceReader(parser)(markdown, deadline).some((block) => block.reachesEnd);
}
