export { startWorkflow } from './start-workflow.js';
export type { StartWorkflowRequest } from './start-workflow.js';
export { workflowStatus } from './workflow-status.js';
export type { WorkflowStatusRequest } from './workflow-status.js';
export { advanceWorkflow } from './advance-workflow.js';
export type { AdvanceWorkflowRequest, AdvanceWorkflowResult } from './advance-workflow.js';
export { MAX_LISTED_INGEST_BLOCKS, describeStepIngest, stepIngestReportOf } from './advance/index.js';
export type { StepIngestReport } from './advance/index.js';
export { abortWorkflow } from './abort-workflow.js';
export type { AbortWorkflowRequest } from './abort-workflow.js';
export { workflowStatusOf } from './workflow-status-response.js';
export type {
  NextAction,
  WorkflowCompletion,
  WorkflowContractStatus,
  WorkflowStatusResponse,
} from './workflow-status-response.js';
export { workflowSubmitTarget } from './workflow-submit-target.js';
export type { WorkflowSubmitTarget } from './workflow-submit-target.js';
export { NOT_STARTED_MESSAGE, WorkflowError, workflowErrorCodeOf } from './workflow-error.js';
export type { WorkflowEngineErrorCode, WorkflowErrorCode } from './workflow-error.js';
export { stepDocumentPath } from './step-position.js';
export { createWorkflowObserver } from './create-workflow-observer.js';
export type { WorkflowObserverOptions } from './create-workflow-observer.js';
export type {
  EndedPass,
  ObservedPass,
  WorkflowEngineDeps,
  WorkflowObserver,
  WorkflowReconciliation,
} from './workflow-engine-deps.js';
export { registerWorkflowArtefacts } from './register-workflow-artefacts.js';
export type {
  RegisterWorkflowArtefactsRequest,
  RegisterWorkflowArtefactsResult,
} from './register-workflow-artefacts.js';
export { findWorkflowEventGaps } from './find-workflow-event-gaps.js';
export type { WorkflowEventGap } from './find-workflow-event-gaps.js';
