import { joinHtml, markup } from './escape-html.js';
import type { SafeHtml } from './escape-html.js';
import type { ReportDiff } from '../model/index.js';

/** A file version's diff: a unified patch colored by line kind, or the reason the report does not carry it. */
export function renderDiff(diff: ReportDiff): SafeHtml {
  switch (diff.kind) {
    case 'text':
      return markup`<pre class="diff" tabindex="0">${renderPatch(diff.patch)}</pre>${
        diff.truncated ? markup`<p class="note">Diff cut at the report's line limit.</p>` : null
      }`;
    case 'binary':
      return markup`<p class="meta">${diff.message}</p>`;
    case 'unavailable':
      return markup`<p class="note">No diff (${diff.reason}): ${diff.message}</p>`;
    case 'omitted':
      return markup`<p class="note">${diff.message} See it with <code>${diff.command}</code>.</p>`;
  }
}

// One class per line kind: a = added, d = removed, h = hunk header, m = file header or note, c = context.
function renderPatch(patch: string): SafeHtml {
  const lines = patch.endsWith('\n') ? patch.slice(0, -1).split('\n') : patch.split('\n');
  let inHunk = false;
  return joinHtml(
    lines.map((line) => {
      if (line.startsWith('@@')) inHunk = true;
      return markup`<span class="${lineClass(line, inHunk)}">${line === '' ? ' ' : line}</span>`;
    }),
  );
}

function lineClass(line: string, inHunk: boolean): string {
  if (line.startsWith('@@')) return 'h';
  if (!inHunk || line.startsWith('\\')) return 'm';
  if (line.startsWith('+')) return 'a';
  if (line.startsWith('-')) return 'd';
  return 'c';
}
