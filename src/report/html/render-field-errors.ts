import { joinHtml, markup } from './escape-html.js';
import type { SafeHtml } from './escape-html.js';
import type { ReportFieldError } from '../model/index.js';

/** A refused artifact's field errors as a table, or nothing when it has none. */
export function renderFieldErrors(errors: readonly ReportFieldError[]): SafeHtml {
  if (errors.length === 0) return markup``;
  const rows = errors.map(
    (error) =>
      markup`<tr><td><code>${error.path}</code></td><td>${error.expected}</td><td>${error.got ?? '-'}</td><td>${error.message}</td></tr>`,
  );
  return markup`<table><caption class="meta">Field errors</caption>
<thead><tr><th scope="col">Field</th><th scope="col">Expected</th><th scope="col">Got</th><th scope="col">Message</th></tr></thead>
<tbody>${joinHtml(rows)}</tbody></table>`;
}
