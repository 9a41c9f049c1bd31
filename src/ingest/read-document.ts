import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { IngestLimits } from '../config/index.js';
import { describeError } from '../project/index.js';
import type { ReportProblem } from './ingest-problem.js';

/** Reads and decodes a project-relative document, or reports why not and returns null. */
export async function readDocument(
  projectDir: string,
  docPath: string,
  limits: IngestLimits,
  report: ReportProblem,
): Promise<string | null> {
  const absolute = path.join(projectDir, docPath);
  let bytes: Buffer;
  try {
    const info = await stat(absolute);
    if (!info.isFile()) {
      report('document_unreadable', `${docPath} is not a regular file`);
      return null;
    }
    if (info.size > limits.maxDocumentBytes) {
      report(
        'too_large',
        `${docPath} is ${info.size} bytes; max_document_bytes is ${limits.maxDocumentBytes}`,
      );
      return null;
    }
    bytes = await readFile(absolute);
  } catch (error) {
    report('document_unreadable', `cannot read ${docPath}: ${describeError(error)}`);
    return null;
  }
  try {
    // Spec 1: a document that is not valid UTF-8 is not parsed; the decoder drops a leading BOM.
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    report('invalid_utf8', `${docPath} is not valid UTF-8; nothing was written`);
    return null;
  }
}
