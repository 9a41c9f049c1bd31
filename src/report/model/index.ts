export { readRunReport } from './read-run-report.js';
export { readPathReport } from './read-path-report.js';
export { DEFAULT_REPORT_LIMITS } from './report-limits.js';
export type { ReportCaps, RunReportOptions } from './report-limits.js';
export type {
  PathReport,
  PathReportVersion,
  ReportBlock,
  ReportBudgets,
  ReportCommit,
  ReportContract,
  ReportDiff,
  ReportDocument,
  ReportFieldError,
  ReportFile,
  ReportLimits,
  ReportLinks,
  ReportProblem,
  ReportRunHeader,
  ReportStep,
  ReportStepContract,
  ReportStepStatus,
  ReportVerify,
  RunReport,
} from './run-report.js';
