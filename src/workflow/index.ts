// The workflow engine's surface; each subfolder keeps its own block of exports.

// State: .agent/runs/<run_id>/state.json, its revision and lock (docs/workflow-state.md).
export {
  WorkflowStateError,
  createWorkflowState,
  listRunningWorkflows,
  parseWorkflowState,
  readPinnedDefinition,
  readWorkflowState,
  transactWorkflowState,
  updateWorkflowState,
  workflowDefinitionPath,
  workflowStateLockPath,
  workflowStateSchema,
} from './state/index.js';
export type {
  CreateOptions,
  NewWorkflowState,
  PinnedDefinition,
  StateDurability,
  TransactOptions,
  WorkflowState,
  WorkflowStateChange,
  WorkflowStateErrorCode,
  WorkflowStatus,
  WorkflowStepType,
  WorkflowSummary,
  WorkflowTask,
} from './state/index.js';
