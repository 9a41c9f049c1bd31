export { WorkflowStateError } from './workflow-state-error.js';
export type { WorkflowStateErrorCode } from './workflow-state-error.js';
export {
  projectRelativePathSchema,
  workflowContractStateSchema,
  workflowStateSchema,
  workflowStatusSchema,
  workflowStepTypeSchema,
  workflowSummarySchema,
  workflowTaskSchema,
} from '../../runs/index.js';
export type {
  WorkflowContractState,
  WorkflowState,
  WorkflowStatus,
  WorkflowCompletionSummary,
  WorkflowTask,
} from '../../runs/index.js';
export { workflowDefinitionPath, workflowStateLockPath } from '../../runs/index.js';
export { createWorkflowState } from './create-workflow-state.js';
export type { CreateOptions, NewWorkflowState, PinnedDefinition } from './create-workflow-state.js';
export { parseWorkflowState, readWorkflowState } from './read-workflow-state.js';
export { transactWorkflowState, updateWorkflowState } from './transact-workflow-state.js';
export type { TransactOptions, WorkflowStateChange } from './transact-workflow-state.js';
export { listRunningWorkflows } from './list-running-workflows.js';
export { readPinnedDefinition } from './read-pinned-definition.js';
export { revisionEventSchema, STATE_REVISION_FIELD } from '../../runs/index.js';
export type { RevisionEvent } from '../../runs/index.js';
export { findMissingRevisionEvents } from './find-missing-revision-events.js';
export { recoverRevisionEvents } from './recover-revision-events.js';
export type { RecoverOptions } from './recover-revision-events.js';
export type { StateDurability } from './write-workflow-state.js';
