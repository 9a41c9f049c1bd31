import type { Transformer } from 'node:stream/web';
import type { StreamTextTransform, TextStreamPart, ToolSet } from 'ai';
import { describeError } from '../project/index.js';
import { DocumentIngest } from './document-ingest.js';
import type { AiSdkIngestOptions, IngestDone } from './document-ingest.js';

/** A transform for `streamText({ experimental_transform })` that ingests the text as it streams. */
export type IngestTransform = (<TOOLS extends ToolSet>(
  options: Parameters<StreamTextTransform<TOOLS>>[0],
) => ReturnType<StreamTextTransform<TOOLS>>) & {
  /** The `document.done` event once the stream ended, or undefined when the ingest failed (see `onError`). */
  readonly done: Promise<IngestDone | undefined>;
};

const ADAPTER = 'ingestTransform';

/**
 * A transform for `streamText({ experimental_transform })`: every stream part passes through unchanged and in
 * order, and the text of the `text-delta` parts is ingested as `createIngestStream` ingests it, each file written
 * before the part that closes its block passes on. One value serves one `streamText` call (one document).
 */
export function ingestTransform(options: AiSdkIngestOptions): IngestTransform {
  const ingest = new DocumentIngest(options, ADAPTER);
  let used = false;
  // The tools and stopStream streamText passes are not needed: the transform never stops the model.
  const transform = <TOOLS extends ToolSet>(): ReturnType<StreamTextTransform<TOOLS>> => {
    if (used)
      throw new Error(
        `${ADAPTER}(...) serves one streamText call (it ingests one document, ${options.docPath}); make one per call`,
      );
    used = true;
    type Part = TextStreamPart<TOOLS>;
    // `cancel` is in the WHATWG spec and Node 20, not yet in TS's types (as in createIngestStream).
    const transformer: Transformer<Part, Part> & { cancel: (reason: unknown) => Promise<void> } = {
      async transform(part, controller) {
        if (part.type === 'start-step') ingest.startStep();
        // Awaited: the file of a block this text closes is on disk before the part passes on.
        else if (part.type === 'text-delta') await ingest.text(part.text);
        else if (part.type === 'abort')
          ingest.cutOff(
            `the model's stream was aborted${part.reason === undefined ? '' : `: ${part.reason}`}`,
          );
        else if (part.type === 'error')
          ingest.cutOff(`the model's stream reported an error: ${describeError(part.error)}`);
        controller.enqueue(part);
      },
      async flush() {
        await ingest.end();
      },
      // The reader cancelled the stream (a client went away): the document is cut off where it is.
      cancel: async (reason: unknown) => {
        ingest.cutOff(`the reader cancelled the stream: ${describeError(reason)}`);
        await ingest.done;
      },
    };
    return new TransformStream<Part, Part>(transformer);
  };
  return Object.assign(transform, { done: ingest.done });
}
