import { SafeHtml, markup } from './escape-html.js';
import { PAGE_CSP, PAGE_SCRIPT, PAGE_STYLE } from './page-assets.js';

/** The generator meta every report page carries, so `report -o` knows a file it may replace. */
export const REPORT_GENERATOR = 'artifact-ingest report';

/** Wraps a page's header, main and footer into one self-contained HTML document. */
export function renderPage(parts: {
  readonly title: string;
  readonly header: SafeHtml;
  readonly main: SafeHtml;
  readonly footer: SafeHtml;
}): string {
  // The CSP meta comes first in <head>, before the style and script it admits by hash.
  return markup`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${PAGE_CSP}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="${REPORT_GENERATOR}">
<meta name="referrer" content="no-referrer">
<title>${parts.title}</title>
<style>${new SafeHtml(PAGE_STYLE)}</style>
</head>
<body>
<header>
${parts.header}
</header>
<main>
${parts.main}
</main>
<footer>
${parts.footer}
</footer>
<script>${new SafeHtml(PAGE_SCRIPT)}</script>
</body>
</html>
`.value;
}
