// The entry of the markdown render worker (started by isolated-markdown-renderer.ts): it renders each agent
// document it is sent and answers with the HTML; its parent terminates it when a document overruns its limit.
import { serveDeadlineWorker } from '../../../ingest/index.js';
import { renderMarkdown } from './render-markdown.js';
import type { MarkdownRenderRequest } from './isolated-markdown-renderer.js';

serveDeadlineWorker(
  (request: MarkdownRenderRequest): string => renderMarkdown(request.markdown, request.headingOffset).value,
);
