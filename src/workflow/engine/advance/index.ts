export { maxFixAttemptsOf } from './judge-step-contract.js';
export type { WorkflowFailure } from './judge-step-contract.js';
export { readOutputSubmissions, readPassSubmissions, submitOutputBlocks } from './pass-submissions.js';
export { planAdvance } from './plan-advance.js';
export { recordStepTrace } from './record-step-trace.js';
export { MAX_LISTED_INGEST_BLOCKS, describeStepIngest, stepIngestReportOf } from './step-ingest-report.js';
export type { StepIngestReport } from './step-ingest-report.js';
export { writeStepDocument } from './write-step-document.js';
export type { StepDocumentIngest } from './write-step-document.js';
