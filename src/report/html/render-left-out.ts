import { joinHtml, markup } from './escape-html.js';
import { formatBytes } from './format-figures.js';
import type { SafeHtml } from './escape-html.js';
import type { ReportLimits, ReportProblem } from '../model/index.js';

/** The page's "Left out" section: what the caps left out, what could not be read, and the command that shows it all. */
export function renderLeftOut(limits: ReportLimits, problems: readonly ReportProblem[]): SafeHtml {
  return markup`<section aria-labelledby="limits-heading">
<h2 id="limits-heading">Left out</h2>
${renderLimits(limits)}
${renderProblems(problems)}
</section>`;
}

function renderLimits(limits: ReportLimits): SafeHtml {
  const left = [
    [limits.filesOmitted ?? 0, 'file version', 'file versions', 'only counted'],
    [limits.blocksOmitted ?? 0, 'block', 'blocks', 'only counted'],
    [limits.diffsOmitted, 'diff', 'diffs', 'omitted'],
    [limits.diffsTruncated, 'diff', 'diffs', 'cut'],
    [limits.documentsOmitted, 'document', 'documents', 'omitted'],
    [limits.documentsTruncated, 'document', 'documents', 'cut'],
  ] as const;
  const leftOut = left
    .filter(([count]) => count > 0)
    .map(([count, one, many, what]) => `${count} ${count === 1 ? one : many} ${what}`);
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

function renderProblems(problems: readonly ReportProblem[]): SafeHtml {
  if (problems.length === 0) return markup``;
  return markup`<h3>Could not read</h3><ul>${joinHtml(
    problems.map((problem) => markup`<li><code>${problem.code}</code>: ${problem.message}</li>`),
  )}</ul>`;
}
