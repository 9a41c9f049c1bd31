export { runGraph } from './run-graph.js';
export { runIngestHook } from './ingest-hook.js';
export { ingestDocument, runIngest } from './recorded-ingest.js';
export { createIngestStream, recordedIngestStream } from './recorded-ingest-stream.js';
export type { RecordedStreamInternals } from './recorded-ingest-stream.js';
export type { IngestHookOptions, IngestHookResult } from './ingest-hook.js';
export { RunError } from './run-error.js';
export type { RunErrorCode } from './run-error.js';
export {
  parseRunState,
  runStateSchema,
  readRunState,
  readTransitionLog,
  resolveRunState,
} from './state/index.js';
export { listRuns, readRun } from './list-runs.js';
export { findGraphEventGaps, findNodeEventGaps } from './find-node-event-gaps.js';
export type { NodeEventGap } from './find-node-event-gaps.js';
export type { NodeCounts, RunDetails, RunManifestSummary, RunSummary } from './list-runs.js';
export { defaultRunId } from './default-run-id.js';
export type { RunGraphOptions, RunProgress, RunResult } from './run-types.js';
export type {
  NodeContractState,
  NodeIngestSummary,
  NodeState,
  NodeStatus,
  RunBudgetsState,
  RunState,
  RunStatus,
} from '../../runs/index.js';
