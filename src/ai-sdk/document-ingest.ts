import type { IngestStreamEvent, IngestStreamOptions } from '../ingest/index.js';
import { describeError, redactSecrets } from '../project/index.js';
import { recordedIngestStream } from '../runtime/index.js';

/** The last event of an adapter's ingest: the manifest, its path, the problems and whether it was cut off. */
export type IngestDone = Extract<IngestStreamEvent, { readonly type: 'document.done' }>;

/** Options of the AI SDK adapters: `createIngestStream`'s, plus callbacks for what the ingest decides. */
export interface AiSdkIngestOptions extends IngestStreamOptions {
  /** Each event of the ingest, in order; awaited, so a slow handler slows the model's stream (back-pressure). */
  readonly onEvent?: (event: IngestStreamEvent) => void | PromiseLike<void>;
  /** The document's end, once its manifest is written: the `document.done` event. */
  readonly onDone?: (done: IngestDone) => void | PromiseLike<void>;
  /**
   * An ingest that failed, or a callback of these options that threw; the model's stream goes on regardless.
   * Default: a process warning (`process.emitWarning`, code `ARTIFACT_INGEST_AI_SDK`).
   */
  readonly onError?: (error: Error) => void;
}

/**
 * One document ingested from a model call's text, fail-open: text goes in (step by step), `createIngestStream`
 * decides its blocks, and nothing that goes wrong in the ingest is ever thrown at the caller.
 */
export class DocumentIngest {
  /** The `document.done` event, or undefined when the ingest failed (reported through `onError`). */
  readonly done: Promise<IngestDone | undefined>;
  private readonly cut = new AbortController();
  private readonly signal: AbortSignal;
  private readonly writer: WritableStreamDefaultWriter<string>;
  private failed = false;
  private fedText = false;
  private endsLine = true;
  private inNewStep = false;

  constructor(
    private readonly options: AiSdkIngestOptions,
    private readonly adapter: string,
  ) {
    const { signal } = options;
    this.signal = signal === undefined ? this.cut.signal : AbortSignal.any([signal, this.cut.signal]);
    // Misuse (a bad id, a docPath outside the project) throws here, where the adapter is made.
    // Each text part passes on only once the files its text closed are on disk.
    const stream = recordedIngestStream(
      { ...streamOptionsOf(options), signal: this.signal },
      { settleEachChunk: true },
    );
    this.writer = stream.writable.getWriter();
    this.done = this.read(stream.readable);
  }

  /** A new step of the call begins: its text starts on a line of its own. */
  startStep(): void {
    this.inNewStep = true;
  }

  /** Feeds text of the current step; settles once the blocks it closed are decided (their files written). */
  async text(text: string): Promise<void> {
    if (text === '' || this.failed || this.aborted()) return;
    // Steps are joined into one document; a step's text goes on a new line, so its first fence can open a block.
    const chunk = this.inNewStep && this.fedText && !this.endsLine ? `\n${text}` : text;
    this.inNewStep = false;
    this.fedText = true;
    this.endsLine = /[\r\n]$/.test(text);
    try {
      await this.writer.write(chunk);
    } catch (error) {
      if (!this.aborted()) this.fail(error);
    }
  }

  /** Ends the document as cut off: what was decided stays, nothing partial is written. */
  cutOff(reason: string): void {
    this.cut.abort(new Error(redactSecrets(reason)));
  }

  /** Ends the document (saved at `docPath`, ingested whole) and settles with its `document.done` event. */
  async end(): Promise<IngestDone | undefined> {
    if (!this.failed && !this.aborted()) {
      try {
        await this.writer.close();
      } catch (error) {
        if (!this.aborted()) this.fail(error);
      }
    }
    return this.done;
  }

  /** Read afresh after each await: the signal may abort while a write is in flight. */
  private aborted(): boolean {
    return this.signal.aborted;
  }

  private async read(readable: ReadableStream<IngestStreamEvent>): Promise<IngestDone | undefined> {
    let done: IngestDone | undefined;
    try {
      // Read to the end whatever the callbacks do: an unread event would stall the ingest, and the model with it.
      for await (const event of readable) {
        if (event.type === 'document.done') done = event;
        await this.call('onEvent', () => this.options.onEvent?.(event));
      }
    } catch (error) {
      this.fail(error);
      return undefined;
    }
    if (done === undefined) return undefined;
    const ended = done;
    await this.call('onDone', () => this.options.onDone?.(ended));
    return done;
  }

  private async call(name: string, callback: () => void | PromiseLike<void>): Promise<void> {
    try {
      await callback();
    } catch (error) {
      this.report(
        new Error(`the ${name} callback of ${this.adapter} threw: ${describeError(error)}`, { cause: error }),
      );
    }
  }

  private fail(error: unknown): void {
    if (this.failed) return;
    this.failed = true;
    this.report(
      new Error(
        `${this.adapter} could not ingest ${this.options.docPath}; the model's output goes on without it: ${redactSecrets(describeError(error))}`,
        { cause: error },
      ),
    );
  }

  private report(error: Error): void {
    try {
      if (this.options.onError !== undefined) this.options.onError(error);
      else process.emitWarning(error.message, { code: 'ARTIFACT_INGEST_AI_SDK' });
    } catch {
      // An onError that throws has nowhere left to report to; the model's stream must still go on.
    }
  }
}

/** The options `createIngestStream` takes, without the adapter's callbacks. */
function streamOptionsOf(options: AiSdkIngestOptions): IngestStreamOptions {
  const streamOptions: Partial<Record<keyof AiSdkIngestOptions, unknown>> = { ...options };
  delete streamOptions.onEvent;
  delete streamOptions.onDone;
  delete streamOptions.onError;
  return streamOptions as IngestStreamOptions;
}
