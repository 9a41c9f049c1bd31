// The workflow engine an outside agent drives over MCP (spec workflow-mcp.md); each subfolder keeps its own block.

// definition/: workflow definitions (schema, rules, loading, built-ins), templates, instructions assembly
export {
  ARTEFACTS_INSTRUCTION,
  BUILTIN_VARIABLES,
  BUILTIN_WORKFLOW_NAMES,
  DEFAULT_NEXT_ACTION,
  WORKFLOW_STEP_TYPES,
  asTemplateList,
  assembleInstructions,
  builtinValues,
  builtinsForStepType,
  listWorkflows,
  loadWorkflow,
  loopTaskValue,
  parseWorkflow,
  parseWorkflowTemplate,
  renderWorkflowTemplate,
  spawnLine,
  templateText,
} from './definition/index.js';
export type {
  ActionStep,
  BuiltinContext,
  LoadWorkflowOptions,
  LoopStep,
  RalphStep,
  RenderProblem,
  RenderProblemCode,
  RenderResult,
  TemplateValue,
  TemplateValues,
  WorkflowDefinition,
  WorkflowStep,
  WorkflowStepType,
  WorkflowSummary,
  WorkflowTemplate,
} from './definition/index.js';

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
  WorkflowCompletionSummary,
  WorkflowTask,
} from './state/index.js';

// engine/: start, status, advance, abort over a project directory (docs/workflow-engine.md).
export {
  NOT_STARTED_MESSAGE,
  WorkflowError,
  abortWorkflow,
  advanceWorkflow,
  startWorkflow,
  stepDocumentPath,
  workflowErrorCodeOf,
  workflowStatus,
  workflowStatusOf,
} from './engine/index.js';
export type {
  AbortWorkflowRequest,
  AdvanceWorkflowRequest,
  NextAction,
  ObservedPass,
  StartWorkflowRequest,
  WorkflowCompletion,
  WorkflowEngineDeps,
  WorkflowEngineErrorCode,
  WorkflowErrorCode,
  WorkflowObserver,
  WorkflowReconciliation,
  WorkflowStatusRequest,
  WorkflowStatusResponse,
} from './engine/index.js';
