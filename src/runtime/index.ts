export type { GraphDefinition, GraphNode, GraphNodeType } from './graph/index.js';
export {
  loadGraph,
  parseGraph,
  BUILTIN_GRAPH_NAMES,
  BUILTIN_GRAPH_YAML,
  isBuiltinGraphName,
  parseTemplate,
  renderTemplate,
  resolveOutputPath,
  graphJsonSchema,
} from './graph/index.js';
export type {
  BuiltinGraphName,
  ParsedTemplate,
  TemplatePart,
  TemplateVariable,
  OutputPathResult,
} from './graph/index.js';
export {
  AgentError,
  createAgent,
  createCommandAgent,
  createOpenAiAgent,
  createReplayAgent,
  parseRetryAfter,
  retryDelayMs,
} from './agents/index.js';
export type { Agent, AgentConfig, AgentKind, AgentRequest, RetryDelayOptions } from './agents/index.js';
export {
  runGraph,
  runIngestHook,
  RunError,
  runStateSchema,
  parseRunState,
  readRunState,
  readTransitionLog,
  resolveRunState,
  listRuns,
  readRun,
  defaultRunId,
  findGraphEventGaps,
  findNodeEventGaps,
} from './run/index.js';
export type {
  IngestHookOptions,
  IngestHookResult,
  NodeEventGap,
  RunErrorCode,
  NodeCounts,
  RunDetails,
  RunManifestSummary,
  RunSummary,
  NodeContractState,
  NodeIngestSummary,
  NodeState,
  NodeStatus,
  RunBudgetsState,
  RunGraphOptions,
  RunProgress,
  RunResult,
  RunState,
  RunStatus,
} from './run/index.js';
