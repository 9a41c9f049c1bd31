import { endsInsideOpenFence } from './ends-inside-open-fence.js';
import type { FenceParser } from '../project/index.js';
import type { FenceBlock, FenceVerdict } from './fence-block.js';
import { parseInfoString } from './parse-info-string.js';
import { readColonPath } from './read-colon-path.js';
import type { RawFence } from './read-fenced-blocks.js';

/** The parts of a {@link FenceBlock} that judging a raw fence adds. */
export interface FenceJudgement {
  readonly candidate: boolean;
  readonly lang: string;
  readonly declaredFile: string;
  readonly verdict: FenceVerdict;
}

const markdownLangs = new Set(['md', 'markdown', 'mdx']);
const valid: FenceVerdict = { valid: true };

/**
 * Whether a fenced block is a candidate: its decoded info string holds `=` (the author attached attributes), or
 * its first word joins a path to the language with `:` (`ts:src/x.ts`, D95), so the author meant a file.
 */
export function isCandidate(fence: Pick<RawFence, 'info'>): boolean {
  const { info } = fence;
  return info.includes('=') || (info.includes(':') && readColonPath(info) !== undefined);
}

/** Decides whether a fenced block is a candidate and whether it can be written, checking rules in spec order. */
export function judgeFence(
  fence: RawFence,
  deadline = Number.POSITIVE_INFINITY,
  parser?: FenceParser,
): FenceJudgement {
  const candidate = isCandidate(fence);
  // The fix a message shows opens with backticks of the block's own length (a ```` run keeps its nesting).
  const { lang, declaredFile, problem } = parseInfoString(fence.info, '`'.repeat(fence.fenceLength));
  const judged = (verdict: FenceVerdict): FenceJudgement => ({ candidate, lang, declaredFile, verdict });

  if (fence.fenceChar === '~') {
    return judged({
      valid: false,
      code: 'tilde_fence',
      message: 'block is fenced with ~~~; fence files with backticks: ```<lang> file=<relative path>',
    });
  }
  if (problem !== undefined) return judged({ valid: false, ...problem });
  if (!fence.closed) {
    const closing = '`'.repeat(fence.fenceLength);
    return judged({
      valid: false,
      code: 'unterminated',
      message: `block was never closed (its container or the document ended first, as in a cut-off answer); end it with a ${closing} line`,
    });
  }
  // A markdown file holding its own fences: if the outer fence is no longer than an inner one, CommonMark
  // closes the outer block at the inner block's closing line and the content stops inside the inner block.
  if (markdownLangs.has(lang.toLowerCase()) && endsInsideOpenFence(fence.content, deadline, parser)) {
    const longer = '`'.repeat(Math.max(fence.fenceLength + 1, 4));
    return judged({
      valid: false,
      code: 'ambiguous_nesting',
      message: `markdown block ends inside an unclosed inner fence, so CommonMark closed it early; open and close it with more backticks than any fence inside (${longer}${lang} file=...)`,
    });
  }
  return judged(valid);
}

/** The block a scan reports of `fence` and its judgement, numbered `index` (-1: no candidate). */
export function fenceBlockOf(fence: RawFence, judgement: FenceJudgement, index: number): FenceBlock {
  const { candidate, lang, declaredFile, verdict } = judgement;
  return {
    index,
    candidate,
    lang,
    declaredFile,
    info: fence.info,
    rawInfo: fence.rawInfo,
    fenceChar: fence.fenceChar,
    fenceLength: fence.fenceLength,
    content: fence.content,
    closed: fence.closed,
    startLine: fence.startLine,
    endLine: fence.endLine,
    verdict,
  };
}
