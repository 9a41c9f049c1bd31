export { escapeHtml, joinHtml, markup, SafeHtml } from './escape-html.js';
export type { HtmlValue } from './escape-html.js';
export { PAGE_CSP, PAGE_SCRIPT, PAGE_STYLE, cspHash } from './page-assets.js';
export { REPORT_GENERATOR } from './render-page.js';
export { renderMarkdown } from './render-markdown.js';
export { renderPathReportPage } from './render-path-report-page.js';
export { renderRunReportPage } from './render-run-report-page.js';
export { MAX_TIMELINE_BARS } from './render-timeline.js';
