export type { GraphDefinition, GraphNode, GraphNodeType } from './graph-definition.js';
export { loadGraph, parseGraph } from './load-graph.js';
export { BUILTIN_GRAPH_NAMES, BUILTIN_GRAPH_YAML, isBuiltinGraphName } from './builtin-graphs.js';
export type { BuiltinGraphName } from './builtin-graphs.js';
export { parseTemplate, renderTemplate } from './template.js';
export type { ParsedTemplate, TemplatePart, TemplateVariable } from './template.js';
export { resolveOutputPath } from './resolve-output-path.js';
export type { OutputPathResult } from './resolve-output-path.js';
export {
  AgentError,
  createAgent,
  createCommandAgent,
  createOpenAiAgent,
  createReplayAgent,
} from './agents/index.js';
export type { Agent, AgentConfig, AgentKind, AgentRequest } from './agents/index.js';
export { runGraph } from './run-graph.js';
export { runIngestHook } from './ingest-hook.js';
export type { IngestHookOptions, IngestHookResult } from './ingest-hook.js';
export { RunError } from './run-error.js';
export type { RunErrorCode } from './run-error.js';
export { runStateSchema, readRunState } from './run-state.js';
export { listRuns, readRun } from './list-runs.js';
export type { NodeCounts, RunDetails, RunManifestSummary, RunSummary } from './list-runs.js';
export { defaultRunId } from './default-run-id.js';
export type {
  NodeIngestSummary,
  NodeState,
  NodeStatus,
  RunGraphOptions,
  RunProgress,
  RunResult,
  RunState,
  RunStatus,
} from './run-types.js';
