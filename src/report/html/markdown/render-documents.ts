import { performance } from 'node:perf_hooks';
import { formatDuration } from '../format-figures.js';
import { sharedMarkdownRenderer } from './isolated-markdown-renderer.js';
import type { SafeHtml } from '../escape-html.js';
import type { IsolatedMarkdownRenderer } from './isolated-markdown-renderer.js';

/** Time limits of rendering a page's agent documents, and the renderer to use. */
export interface DocumentRenderOptions {
  /** The most one document may take to render, in milliseconds; 2,000 by default. */
  readonly documentTimeLimitMs?: number;
  /** The most all of a page's documents may take together, in milliseconds; 10,000 by default. */
  readonly pageTimeLimitMs?: number;
  /** The renderer (for tests); by default the process's shared one. */
  readonly renderer?: IsolatedMarkdownRenderer;
}

/** One document as the page shows it: rendered HTML, or its text with a one-line note saying why. */
export type DocumentRendering =
  { readonly kind: 'html'; readonly html: SafeHtml } | { readonly kind: 'text'; readonly note: string };

/** The default time limit of one document's rendering, in milliseconds. */
export const DEFAULT_DOCUMENT_TIME_LIMIT_MS = 2_000;
/** The default time limit of all of a page's documents together, in milliseconds. */
export const DEFAULT_PAGE_TIME_LIMIT_MS = 10_000;

/**
 * Renders each document (null: none to render) one after another within its own limit and the page's budget;
 * a document that overruns either, or comes after the budget is used, is shown as text, so the page comes out.
 */
export async function renderDocuments(
  documents: readonly (string | null)[],
  headingOffset: number,
  options: DocumentRenderOptions = {},
): Promise<(DocumentRendering | null)[]> {
  const documentLimit = options.documentTimeLimitMs ?? DEFAULT_DOCUMENT_TIME_LIMIT_MS;
  const pageLimit = options.pageTimeLimitMs ?? DEFAULT_PAGE_TIME_LIMIT_MS;
  const renderer = options.renderer ?? sharedMarkdownRenderer();
  const pageSpent: DocumentRendering = {
    kind: 'text',
    note: `Not rendered: the report's ${formatDuration(pageLimit)} budget for rendering documents was used up; shown as text.`,
  };
  const started = performance.now();
  let budgetUsed = false;
  const renderings: (DocumentRendering | null)[] = [];
  for (const markdown of documents) {
    if (markdown === null) {
      renderings.push(null);
      continue;
    }
    const remaining = pageLimit - (performance.now() - started);
    if (budgetUsed || remaining <= 0) {
      budgetUsed = true;
      renderings.push(pageSpent);
      continue;
    }
    const cutByPage = remaining < documentLimit;
    const rendering = await renderer.render(markdown, headingOffset, Math.min(documentLimit, remaining));
    switch (rendering.kind) {
      case 'html':
        renderings.push(rendering);
        break;
      case 'timed-out':
        // A deadline set by what was left of the budget uses it up, whatever the clock reads a moment later.
        budgetUsed ||= cutByPage;
        renderings.push(
          cutByPage
            ? pageSpent
            : {
                kind: 'text',
                note: `Too complex to render within the ${formatDuration(documentLimit)} limit per document; shown as text.`,
              },
        );
        break;
      case 'failed':
        renderings.push({ kind: 'text', note: `Not rendered (${rendering.reason}); shown as text.` });
        break;
    }
  }
  return renderings;
}
