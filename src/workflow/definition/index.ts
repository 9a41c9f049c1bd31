export { BUILTIN_WORKFLOW_NAMES, BUILTIN_WORKFLOW_YAML, isBuiltinWorkflowName } from './builtin-workflows.js';
export type { BuiltinWorkflowName } from './builtin-workflows.js';
export { DEFAULT_NEXT_ACTION, WORKFLOW_STEP_TYPES } from './workflow-definition.js';
export type {
  ActionStep,
  LoopStep,
  RalphStep,
  WorkflowBody,
  WorkflowDefinition,
  WorkflowStep,
  WorkflowStepType,
} from './workflow-definition.js';
export { listWorkflows, loadWorkflow, parseWorkflow } from './load-workflow.js';
export type {
  BrokenWorkflow,
  LoadWorkflowOptions,
  WorkflowListing,
  WorkflowSummary,
} from './load-workflow.js';
export { resolveWorkflowReference } from './resolve-workflow-reference.js';
export type {
  ProjectWorkflowFile,
  WorkflowReference,
  WorkflowReferenceOptions,
} from './resolve-workflow-reference.js';
export { WorkflowReferenceError } from './workflow-reference-error.js';
export type { WorkflowReferenceProblem } from './workflow-reference-error.js';
export { MAX_RALPH_PASSES, MAX_WORKFLOW_STEPS, WORKFLOW_KEYS, workflowSchema } from './workflow-schema.js';
export { parseWorkflowTemplate, TEMPLATE_NAME_PATTERN } from './workflow-template.js';
export type {
  ScopedReference,
  TemplateAccessor,
  TemplateParseResult,
  TemplateReference,
  TemplateSyntaxCode,
  TemplateSyntaxProblem,
  WorkflowTemplate,
  WorkflowTemplatePart,
} from './workflow-template.js';
export { asTemplateList, renderWorkflowTemplate, templateText } from './render-workflow-template.js';
export type {
  RenderProblem,
  RenderProblemCode,
  RenderResult,
  TemplateValue,
  TemplateValues,
} from './render-workflow-template.js';
export {
  BUILTIN_VARIABLES,
  builtinsForStepType,
  builtinValues,
  isBuiltinVariable,
  loopTaskValue,
} from './builtin-variables.js';
export type { BuiltinContext, BuiltinVariable } from './builtin-variables.js';
export {
  ARTEFACTS_INSTRUCTION,
  assembleInstructions,
  contractInstruction,
  spawnLine,
} from './assemble-instructions.js';
