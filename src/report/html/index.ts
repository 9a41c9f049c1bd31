export { escapeHtml, joinHtml, markup, SafeHtml } from './escape-html.js';
export type { HtmlValue } from './escape-html.js';
export { PAGE_CSP, PAGE_SCRIPT, PAGE_STYLE, cspHash } from './page-assets.js';
export { REPORT_GENERATOR } from './render-page.js';
export { formatBytes } from './format-figures.js';
export {
  DEFAULT_DOCUMENT_TIME_LIMIT_MS,
  DEFAULT_PAGE_TIME_LIMIT_MS,
  IsolatedMarkdownRenderer,
  renderMarkdown,
} from './markdown/index.js';
export type { IsolatedMarkdownRendererOptions } from './markdown/index.js';
export { renderPathReportPage } from './render-path-report-page.js';
export { renderRunReportPage } from './render-run-report-page.js';
export type { RunReportPageOptions } from './render-run-report-page.js';
export { MAX_TIMELINE_BARS } from './render-timeline.js';
