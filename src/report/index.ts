export { DEFAULT_REPORT_LIMITS, readPathReport, readRunReport } from './model/index.js';
export type {
  PathReport,
  PathReportVersion,
  ReportBlock,
  ReportBudgets,
  ReportCaps,
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
  RunReportOptions,
} from './model/index.js';
export {
  CUSTOM_FACET_KEYS,
  DEFAULT_LINEAGE_NAMESPACE,
  facetSourcesFor,
  lineageEndpoint,
  lineageRunUuid,
  openLineageEventsOf,
  sendLineageEvents,
  runEventSchema,
  RUN_EVENT_SCHEMA_URL,
} from './openlineage/index.js';
export type {
  FacetSources,
  LineageDataset,
  LineageFacet,
  LineageEndpoint,
  LineageFacets,
  LineageSendErrorCode,
  LineageSendFailure,
  LineageSendProgress,
  LineageSendResult,
  OpenLineageOptions,
  SendLineageOptions,
  RunEvent,
} from './openlineage/index.js';
export {
  DEFAULT_DOCUMENT_TIME_LIMIT_MS,
  DEFAULT_PAGE_TIME_LIMIT_MS,
  IsolatedMarkdownRenderer,
  PAGE_CSP,
  REPORT_GENERATOR,
  escapeHtml,
  formatBytes,
  renderMarkdown,
  renderPathReportPage,
  renderRunReportPage,
} from './html/index.js';
export type { IsolatedMarkdownRendererOptions, RunReportPageOptions } from './html/index.js';
export { readRecordedRun, TRACE_REPORT_OPTIONS } from './otlp/index.js';
export type { RecordedRunRead } from './otlp/index.js';
export { postWithRetries } from './http/index.js';
export type { PostErrorCode, PostOptions, PostOutcome, PostRetry } from './http/index.js';
