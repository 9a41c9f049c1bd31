export { IsolatedMarkdownRenderer } from './isolated-markdown-renderer.js';
export type { IsolatedMarkdownRendererOptions, MarkdownRendering } from './isolated-markdown-renderer.js';
export {
  DEFAULT_DOCUMENT_TIME_LIMIT_MS,
  DEFAULT_PAGE_TIME_LIMIT_MS,
  renderDocuments,
} from './render-documents.js';
export type { DocumentRenderOptions, DocumentRendering } from './render-documents.js';
export { renderMarkdown } from './render-markdown.js';
