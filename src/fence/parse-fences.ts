import type { FenceScan, ParseFencesOptions } from './fence-block.js';
import { mayHoldCandidate } from './may-hold-candidate.js';
import { scanFences } from './scan-fences.js';

/** Finds the fenced code blocks of a markdown document that declare a file, with a verdict for each. */
export function parseFences(markdown: string, options: ParseFencesOptions = {}): FenceScan {
  if (!mayHoldCandidate(markdown, options.all ?? false)) return { blocks: [], parsed: false };
  return scanFences(markdown, options);
}
