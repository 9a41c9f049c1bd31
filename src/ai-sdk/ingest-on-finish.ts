import { DocumentIngest } from './document-ingest.js';
import type { AiSdkIngestOptions, IngestDone } from './document-ingest.js';

/** What `ingestOnFinish` reads of a finished call: the text of each step (`text` alone when `steps` is absent). */
export interface FinishedText {
  readonly text: string;
  readonly steps?: readonly { readonly text: string }[];
}

/** An `onFinish` callback for `generateText` or `streamText` that ingests the call's text. */
export type IngestOnFinish = ((event: FinishedText) => Promise<void>) & {
  /** The `document.done` event once the text is ingested, or undefined when the ingest failed (see `onError`). */
  readonly done: Promise<IngestDone | undefined>;
};

const ADAPTER = 'ingestOnFinish';

/**
 * An `onFinish` callback for `generateText` (or `streamText`) that ingests the finished call's text as one document,
 * the steps joined as `ingestTransform` joins them; it never throws for the ingest (fail-open). One value serves
 * one call.
 */
export function ingestOnFinish(options: AiSdkIngestOptions): IngestOnFinish {
  const ingest = new DocumentIngest(options, ADAPTER);
  let used = false;
  const onFinish = async (event: FinishedText): Promise<void> => {
    if (used)
      throw new Error(
        `${ADAPTER}(...) serves one model call (it ingests one document, ${options.docPath}); make one per call`,
      );
    used = true;
    for (const step of event.steps ?? [{ text: event.text }]) {
      ingest.startStep();
      await ingest.text(step.text);
    }
    await ingest.end();
  };
  return Object.assign(onFinish, { done: ingest.done });
}
