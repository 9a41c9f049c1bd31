import type { ReportLimits } from './run-report.js';
import type { ReportCaps } from './report-limits.js';

/** Keeps a report's running totals of diff and document bytes, and counts what it cut or left out. */
export interface ReportBudget {
  readonly caps: ReportCaps;
  /** Whether another diff may still be carried (the total has not passed `maxDiffBytesTotal`). */
  diffsLeft(): boolean;
  /** Counts a carried diff's bytes, and whether it was cut. */
  spendDiff(bytes: number, truncated: boolean): void;
  /** Counts a diff left out for size. */
  omitDiff(): void;
  /** How many document bytes may still be carried. */
  documentBytesLeft(): number;
  /** Counts a carried document's bytes, and whether it was cut. */
  spendDocument(bytes: number, truncated: boolean): void;
  /** Counts a document left out for size. */
  omitDocument(): void;
  /** How many of `count` more file versions may still be listed; the rest are counted as omitted. */
  takeFiles(count: number): number;
  /** How many of `count` more blocks may still be listed; the rest are counted as omitted. */
  takeBlocks(count: number): number;
  /** The report's `limits`, with `replayCommand` as given. */
  limits(replayCommand: string): ReportLimits;
}

/** A fresh budget for one report. */
export function createReportBudget(caps: ReportCaps): ReportBudget {
  const used = { diffBytes: 0, documentBytes: 0, files: 0, blocks: 0 };
  const counts = {
    filesOmitted: 0,
    blocksOmitted: 0,
    diffsOmitted: 0,
    diffsTruncated: 0,
    documentsTruncated: 0,
    documentsOmitted: 0,
  };
  return {
    caps,
    diffsLeft: () => used.diffBytes < caps.maxDiffBytesTotal,
    spendDiff: (bytes, truncated) => {
      used.diffBytes += bytes;
      if (truncated) counts.diffsTruncated += 1;
    },
    omitDiff: () => {
      counts.diffsOmitted += 1;
    },
    documentBytesLeft: () => Math.max(0, caps.maxDocumentBytesTotal - used.documentBytes),
    spendDocument: (bytes, truncated) => {
      used.documentBytes += bytes;
      if (truncated) counts.documentsTruncated += 1;
    },
    omitDocument: () => {
      counts.documentsOmitted += 1;
    },
    takeFiles: (count) => {
      const taken = Math.min(count, Math.max(0, caps.maxFiles - used.files));
      used.files += taken;
      counts.filesOmitted += count - taken;
      return taken;
    },
    takeBlocks: (count) => {
      const taken = Math.min(count, Math.max(0, caps.maxBlocks - used.blocks));
      used.blocks += taken;
      counts.blocksOmitted += count - taken;
      return taken;
    },
    limits: (replayCommand) => ({ ...caps, ...counts, replayCommand }),
  };
}
