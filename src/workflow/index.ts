// The workflow engine an outside agent drives over MCP (spec workflow-mcp.md). Each part keeps its own block.

// definition/: workflow definitions (schema, rules, loading, built-ins), templates, instructions assembly
export {
  ARTEFACTS_INSTRUCTION,
  BUILTIN_VARIABLES,
  BUILTIN_WORKFLOW_NAMES,
  DEFAULT_NEXT_ACTION,
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
