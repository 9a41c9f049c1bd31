import path from 'node:path';
import type { IngestLimits } from '../config/index.js';
import { describeError } from '../project/index.js';
import type { ReportProblem } from './ingest-problem.js';
import { quickFs, readRegularFile } from '../workspace/index.js';

/** Reads a project-relative document's bytes within max_document_bytes, or reports why not and returns null. */
export async function readDocument(
  projectDir: string,
  docPath: string,
  limits: IngestLimits,
  report: ReportProblem,
): Promise<Uint8Array | null> {
  const absolute = path.join(projectDir, docPath);
  try {
    const info = await quickFs.stat(absolute);
    if (!info.isFile()) {
      report('document_unreadable', `${docPath} is not a regular file`);
      return null;
    }
    if (!withinLimit(docPath, info.size, limits, report)) return null;
    return await readRegularFile(absolute);
  } catch (error) {
    report('document_unreadable', `cannot read ${docPath}: ${describeError(error)}`);
    return null;
  }
}

/**
 * Decodes a document's bytes, whether read from disk or handed over by the writer, under the same rules:
 * max_document_bytes, strict UTF-8, a leading BOM dropped; reports why not and returns null.
 */
export function decodeDocument(
  docPath: string,
  bytes: Uint8Array,
  limits: IngestLimits,
  report: ReportProblem,
): string | null {
  if (!withinLimit(docPath, bytes.byteLength, limits, report)) return null;
  try {
    // Spec 1: a document that is not valid UTF-8 is not parsed; the decoder drops a leading BOM.
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    report('invalid_utf8', `${docPath} is not valid UTF-8; nothing was written`);
    return null;
  }
}

/**
 * The text a writer decoded itself from `bytes` (so it is valid UTF-8), under the same rules as
 * {@link decodeDocument}: max_document_bytes on the bytes, a leading BOM dropped; null after reporting why not.
 */
export function takeDocumentText(
  docPath: string,
  bytes: Uint8Array,
  text: string,
  limits: IngestLimits,
  report: ReportProblem,
): string | null {
  if (!withinLimit(docPath, bytes.byteLength, limits, report)) return null;
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

function withinLimit(docPath: string, size: number, limits: IngestLimits, report: ReportProblem): boolean {
  if (size <= limits.maxDocumentBytes) return true;
  report('too_large', `${docPath} is ${size} bytes; max_document_bytes is ${limits.maxDocumentBytes}`);
  return false;
}
