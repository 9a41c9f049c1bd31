import { DeadlineWorker, workerEntryBeside } from '../../../ingest/index.js';
import { describeError } from '../../../project/index.js';
import { SafeHtml } from '../escape-html.js';

/** What the markdown render worker is sent: one agent document and how far its headings move down. */
export interface MarkdownRenderRequest {
  readonly markdown: string;
  readonly headingOffset: number;
}

/** Internal options of an {@link IsolatedMarkdownRenderer}, for tests: the worker's entry and where warnings go. */
export interface IsolatedMarkdownRendererOptions {
  /** The worker's entry module; by default markdown-worker.js beside this module. */
  readonly workerEntry?: URL;
  /** Where the one warning goes when no worker can be started; by default stderr. */
  readonly warn?: (message: string) => void;
  /** How long a starting worker may take to load before documents are shown as text. */
  readonly startTimeoutMs?: number;
}

/** One document's rendering: inert HTML, or why it is shown as text instead. */
export type MarkdownRendering =
  | { readonly kind: 'html'; readonly html: SafeHtml }
  | { readonly kind: 'timed-out' }
  | { readonly kind: 'failed'; readonly reason: string };

/**
 * Renders agent documents with micromark in one reused worker thread, terminated when a document overruns its
 * time limit (micromark is superlinear on some inputs and cannot be interrupted in-process).
 */
export class IsolatedMarkdownRenderer {
  private readonly worker: DeadlineWorker<MarkdownRenderRequest, string>;

  constructor(options: IsolatedMarkdownRendererOptions = {}) {
    this.worker = new DeadlineWorker({
      entry: options.workerEntry ?? workerEntryBeside(import.meta.url, 'markdown-worker'),
      name: 'markdown render worker',
      task: 'rendering a document',
      fallbackNote: 'agent documents in reports are shown as text',
      warn: options.warn,
      startTimeoutMs: options.startTimeoutMs,
    });
  }

  /** Workers started so far (a terminated one is replaced by the next document's). */
  get workersStarted(): number {
    return this.worker.workersStarted;
  }

  /** The document as inert HTML, or `timed-out` past `timeLimitMs`, or `failed` when no worker could render it. */
  async render(markdown: string, headingOffset: number, timeLimitMs: number): Promise<MarkdownRendering> {
    if (timeLimitMs <= 0) return { kind: 'timed-out' };
    try {
      const outcome = await this.worker.run({ markdown, headingOffset }, timeLimitMs);
      switch (outcome.kind) {
        case 'answered':
          // The worker runs renderMarkdown, whose output is inert by construction.
          return { kind: 'html', html: new SafeHtml(outcome.answer) };
        case 'timed-out':
          return outcome;
        case 'unavailable':
          // No in-process fallback: micromark there could not be stopped, and the page must come out.
          return { kind: 'failed', reason: outcome.reason };
      }
    } catch (error) {
      return { kind: 'failed', reason: describeError(error) };
    }
  }

  /** Terminates the worker; the next document starts a fresh one. */
  close(): Promise<void> {
    return this.worker.close();
  }
}

let shared: IsolatedMarkdownRenderer | undefined;

/** The process's one markdown renderer, started on first use; its idle worker never keeps the process alive. */
export function sharedMarkdownRenderer(): IsolatedMarkdownRenderer {
  shared ??= new IsolatedMarkdownRenderer();
  return shared;
}
