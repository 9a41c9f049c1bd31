import { RUNTIME_CONFIG_DEFAULTS } from '../../config/index.js';

/** Default most document bytes one run writes, all nodes together (config `runtime.max_run_document_bytes`). */
export const DEFAULT_MAX_RUN_DOCUMENT_BYTES = RUNTIME_CONFIG_DEFAULTS.maxRunDocumentBytes;

/** The size limits of a run's node documents: one document, and all of them together. */
export interface RunOutputLimit {
  /** Most UTF-8 bytes of one node's document (and of a rendered prompt): `ingest.limits.max_document_bytes`. */
  readonly maxDocumentBytes: number;
  /** Most UTF-8 bytes of every document the run writes, over all its invocations: `runtime.max_run_document_bytes`. */
  readonly maxRunDocumentBytes: number;
  /**
   * Counts a document of `bytes` about to be written by `nodeId`; returns why it may not be written (and counts
   * nothing) when it is over either limit.
   */
  reserve(nodeId: string, bytes: number): string | undefined;
}

/** Options of {@link startRunOutputLimit}. */
export interface RunOutputLimitOptions {
  readonly maxDocumentBytes: number;
  readonly maxRunDocumentBytes: number;
  /** Bytes of the documents the run already holds (completed nodes kept by a resume). */
  readonly bytesBefore: number;
}

/** Starts the document-size accounting of one run invocation. */
export function startRunOutputLimit(options: RunOutputLimitOptions): RunOutputLimit {
  const { maxDocumentBytes, maxRunDocumentBytes } = options;
  let written = options.bytesBefore;
  return {
    maxDocumentBytes,
    maxRunDocumentBytes,
    reserve(nodeId, bytes) {
      if (bytes > maxDocumentBytes) {
        return `node ${nodeId}: its document is ${String(bytes)} bytes, over max_document_bytes (${String(maxDocumentBytes)} bytes); nothing was written. Make the node's output smaller, or raise ingest.limits.max_document_bytes in artifact-ingest.config.yaml`;
      }
      if (written + bytes > maxRunDocumentBytes) {
        return `node ${nodeId}: its document of ${String(bytes)} bytes would bring the run's documents to ${String(written + bytes)} bytes, over max_run_document_bytes (${String(maxRunDocumentBytes)} bytes); nothing was written. Make the nodes' outputs smaller, or raise runtime.max_run_document_bytes in artifact-ingest.config.yaml`;
      }
      // Counted before the write: two nodes running at once cannot both slip under the total.
      written += bytes;
      return undefined;
    },
  };
}
