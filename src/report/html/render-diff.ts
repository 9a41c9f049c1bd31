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
      return markup`<p class="note">${withCommand(diff.message, diff.command)}</p>`;
  }
}

// The message usually names the command already: set it in code there instead of repeating it.
function withCommand(message: string, command: string): SafeHtml {
  const at = message.indexOf(command);
  if (at === -1) return markup`${message} See it with <code>${command}</code>.`;
  return markup`${message.slice(0, at)}<code>${command}</code>${message.slice(at + command.length)}`;
}

// One class per line kind: a = added, d = removed, h = hunk header, m = file header or note, c = context. A run
// of lines of one kind shares one span: a new file's diff is one span, not one per line (half the page's bytes).
function renderPatch(patch: string): SafeHtml {
  const lines = patch.endsWith('\n') ? patch.slice(0, -1).split('\n') : patch.split('\n');
  const runs: { kind: string; lines: string[] }[] = [];
  let inHunk = false;
  for (const line of lines) {
    if (line.startsWith('@@')) inHunk = true;
    const kind = lineClass(line, inHunk);
    const last = runs.at(-1);
    // Hunk headers stay one per span, so each starts its own row.
    if (last !== undefined && last.kind === kind && kind !== 'h') last.lines.push(line);
    else runs.push({ kind, lines: [line] });
  }
  return joinHtml(
    runs.map(
      (run) =>
        markup`<span class="${run.kind}">${run.lines.map((line) => (line === '' ? ' ' : line)).join('\n')}</span>`,
    ),
  );
}

function lineClass(line: string, inHunk: boolean): string {
  if (line.startsWith('@@')) return 'h';
  if (!inHunk || line.startsWith('\\')) return 'm';
  if (line.startsWith('+')) return 'a';
  if (line.startsWith('-')) return 'd';
  return 'c';
}
