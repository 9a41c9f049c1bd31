import type { ReportLimits } from './run-report.js';

/** The caps a report applies, each overridable through {@link RunReportOptions}. */
export type ReportCaps = Required<
  Pick<
    ReportLimits,
    | 'maxDiffLines'
    | 'maxDiffBytesTotal'
    | 'maxDocumentBytes'
    | 'maxDocumentBytesTotal'
    | 'maxProblems'
    | 'maxFiles'
    | 'maxBlocks'
  >
>;

/** The default caps: small enough that a 10,000-file run still gives a page a browser opens. */
export const DEFAULT_REPORT_LIMITS: ReportCaps = Object.freeze({
  maxDiffLines: 400,
  maxDiffBytesTotal: 2 * 1024 * 1024,
  maxDocumentBytes: 256 * 1024,
  maxDocumentBytesTotal: 2 * 1024 * 1024,
  maxProblems: 100,
  // A row is a few hundred bytes: 2,000 files and 2,000 blocks keep a 10,000-file run's report to a few MB.
  maxFiles: 2000,
  maxBlocks: 2000,
});

/** Options of `readRunReport` and `readPathReport`: any cap of {@link DEFAULT_REPORT_LIMITS} to replace. */
export type RunReportOptions = Partial<ReportCaps> & {
  /**
   * False skips `verify` and the contracts' audit, which re-hash the run's objects and read its contract files:
   * `verify` is then null and `contracts` empty. For readers that use neither, such as the OpenLineage export.
   */
  readonly checks?: boolean;
  /** The git repository the run's commits are read from (`git.repo` of the config); default the project folder. */
  readonly gitRepo?: string;
};

/** The caps of `options` over the defaults; throws a RangeError for a cap that is not a non-negative integer. */
export function resolveReportCaps(options: RunReportOptions = {}): ReportCaps {
  const caps = { ...DEFAULT_REPORT_LIMITS };
  for (const key of Object.keys(caps) as (keyof ReportCaps)[]) {
    const value = options[key];
    if (value === undefined) continue;
    if (!Number.isSafeInteger(value) || value < 0) {
      throw new RangeError(`report option ${key} must be a non-negative integer, not ${String(value)}`);
    }
    caps[key] = value;
  }
  return caps;
}
