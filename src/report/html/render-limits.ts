import { joinHtml, markup } from './escape-html.js';
import { formatBytes } from './format-figures.js';
import type { SafeHtml } from './escape-html.js';
import type { ReportLimits, ReportProblem } from '../model/index.js';

/** The caps the report applied, what they left out, and the command that shows everything. */
export function renderLimits(limits: ReportLimits): SafeHtml {
  const left = [
    [limits.filesOmitted ?? 0, 'file versions only counted'],
    [limits.blocksOmitted ?? 0, 'blocks only counted'],
    [limits.diffsOmitted, 'diffs omitted'],
    [limits.diffsTruncated, 'diffs cut'],
    [limits.documentsOmitted, 'documents omitted'],
    [limits.documentsTruncated, 'documents cut'],
  ] as const;
  const leftOut = left.filter(([count]) => count > 0).map(([count, what]) => `${count} ${what}`);
  return markup`<p>${
    leftOut.length === 0
      ? 'Nothing was left out.'
      : markup`<strong>${leftOut.join(', ')}</strong> to keep the page small.`
  } Caps: ${
    limits.maxFiles === undefined
      ? null
      : `at most ${limits.maxFiles} file versions and ${limits.maxBlocks ?? '-'} blocks listed; `
  }diffs cut at ${limits.maxDiffLines} lines and carried up to ${formatBytes(limits.maxDiffBytesTotal)} in all; documents cut at ${formatBytes(
    limits.maxDocumentBytes,
  )} and carried up to ${formatBytes(limits.maxDocumentBytesTotal)} in all; at most ${limits.maxProblems} problems listed.</p>
<p>See everything, diffs included: <code>${limits.replayCommand}</code></p>`;
}

/** What the report could not read, or nothing. */
export function renderProblems(problems: readonly ReportProblem[]): SafeHtml {
  if (problems.length === 0) return markup``;
  return markup`<h3>Could not read</h3><ul>${joinHtml(
    problems.map((problem) => markup`<li><code>${problem.code}</code>: ${problem.message}</li>`),
  )}</ul>`;
}
