export { readRecordedRun, TRACE_REPORT_OPTIONS, type RecordedRunRead } from './read-recorded-run.js';
