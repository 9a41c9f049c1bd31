import { ObjectStoreError } from '../../artifacts/index.js';
import type { ObjectStore } from '../../artifacts/index.js';
import type { ReportBudget } from './report-budget.js';
import type { ReportDocument } from './run-report.js';
import { utf8PrefixEnd } from './utf8-prefix-end.js';

/** A step's document as its trace or records name it: project-relative path, sha256 hex and size. */
export interface DocumentRef {
  readonly path: string;
  readonly sha256: string;
  readonly bytes: number;
}

/**
 * Reads a step's document from the object store (verified against its hash), cut at `maxDocumentBytes` and at
 * what is left of `maxDocumentBytesTotal`; `store` is null when the project has no object store.
 */
export async function readStepDocument(
  store: ObjectStore | null,
  document: DocumentRef,
  budget: ReportBudget,
): Promise<ReportDocument> {
  const base = { path: document.path, sha256: document.sha256, bytes: document.bytes };
  const unavailable = (why: string): ReportDocument => ({
    ...base,
    markdown: null,
    truncated: false,
    unavailable: why,
  });
  const left = budget.documentBytesLeft();
  if (left === 0) {
    budget.omitDocument();
    return unavailable(
      `left out: the report already carries ${String(budget.caps.maxDocumentBytesTotal)} bytes of documents; read ${document.path}`,
    );
  }
  if (store === null) return unavailable(`the project has no object store; read ${document.path}`);
  let bytes: Uint8Array;
  try {
    bytes = await store.get(`sha256:${document.sha256}`);
  } catch (error) {
    if (error instanceof ObjectStoreError) return unavailable(error.message);
    throw error;
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return unavailable(`${document.path} is not UTF-8 text`);
  }
  const limit = Math.min(budget.caps.maxDocumentBytes, left);
  if (bytes.byteLength <= limit) {
    budget.spendDocument(bytes.byteLength, false);
    return { ...base, markdown: text, truncated: false, unavailable: null };
  }
  const end = utf8PrefixEnd(bytes, limit);
  budget.spendDocument(end, true);
  return {
    ...base,
    markdown: new TextDecoder().decode(bytes.subarray(0, end)),
    truncated: true,
    unavailable: null,
  };
}
