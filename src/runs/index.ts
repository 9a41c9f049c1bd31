export type {
  NodeContractState,
  NodeIngestSummary,
  NodeState,
  NodeStatus,
  RunBudgetsState,
  RunState,
  RunStatus,
} from './run-state-types.js';
export { MAX_STATE_FIELD_ERRORS } from './run-state-types.js';
export {
  nodeContractStateSchema,
  nodeIngestSummarySchema,
  nodeStateSchema,
  runBudgetsStateSchema,
  runStateSchema,
} from './run-state-schema.js';
export { WORKFLOW_STEP_TYPES } from './workflow-step-types.js';
export type { WorkflowStepType } from './workflow-step-types.js';
export {
  FIXED_STATE_FIELDS,
  projectRelativePathSchema,
  workflowContractStateSchema,
  workflowStateHeaderSchema,
  workflowStateSchema,
  workflowStatusSchema,
  workflowStepTypeSchema,
  workflowSummarySchema,
  workflowTaskSchema,
} from './workflow-state-schema.js';
export type {
  WorkflowCompletionSummary,
  WorkflowContractState,
  WorkflowState,
  WorkflowStatus,
  WorkflowTask,
} from './workflow-state-schema.js';
export { workflowDefinitionPath, workflowStateLockPath } from './workflow-state-paths.js';
export { revisionEventSchema, STATE_REVISION_FIELD } from './revision-event.js';
export type { RevisionEvent } from './revision-event.js';
export { readWorkflowRunHeader, stateKindOf } from './workflow-run-header.js';
export type { WorkflowRunHeader } from './workflow-run-header.js';
export {
  HOST_ENV_VAR,
  hostNameProblem,
  hostNameSchema,
  MAX_HOST_LENGTH,
  resolveRunHost,
} from './run-host.js';
