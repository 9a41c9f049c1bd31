// The public API of artifact-ingest: an explicit list of named exports, stage by stage.

// fence: markdown text -> candidate blocks (pure)
export { parseFences } from './fence/index.js';
export type {
  FenceBlock,
  FenceFormatCode,
  FenceScan,
  FenceVerdict,
  ParseFencesOptions,
} from './fence/index.js';

// workspace: path rules (pure) and the confined, atomic, symlink-safe writer
export { checkDeclaredPath, openConfinedRoot, pathCollisionKey, WorkspaceError } from './workspace/index.js';
export type {
  ConfinedRoot,
  ConfinedRootOptions,
  ConfinedWriteOptions,
  Confinement,
  FilesystemRefusalCode,
  PathRuleCode,
  PathVerdict,
  WriteOutcome,
  WriteStep,
} from './workspace/index.js';

// events: the events.jsonl sink and redaction
export { EventLogError, memoryEventLog, openEventLog, redactSecrets } from './events/index.js';
export type { EventFields, EventLevel, EventLine, EventLog, MemoryEventLog } from './events/index.js';

// ingest: one document -> files, manifest v1 and events; configuration and the feature flag
export {
  ConfigError,
  DEFAULT_INGEST_LIMITS,
  IngestFailedError,
  INGEST_ENV_VAR,
  REASON_CODES,
  deriveNodeId,
  ingestDocument,
  ingestManifestSchema,
  loadProjectConfig,
  manifestArtifactSchema,
  parseIngestFlag,
  resolveIngestEnabled,
  runIngest,
  statusOfReason,
} from './ingest/index.js';
export type {
  ArtifactStatus,
  ConfigIssue,
  IngestEnabled,
  IngestEnabledInput,
  IngestLimits,
  IngestManifest,
  IngestMode,
  IngestOptions,
  IngestedContent,
  IngestProblem,
  IngestResult,
  ManifestArtifact,
  ProjectConfig,
  ReasonCode,
  SourceKind,
} from './ingest/index.js';

// runtime: YAML graphs of agent nodes, runs that resume, the post-write ingest hook
export {
  AgentError,
  BUILTIN_GRAPH_NAMES,
  createAgent,
  listRuns,
  loadGraph,
  loadRuntimeConfig,
  parseGraph,
  readRun,
  RunError,
  runGraph,
  runIngestHook,
  runStateSchema,
} from './runtime/index.js';
export type {
  Agent,
  AgentConfig,
  AgentKind,
  AgentRequest,
  GraphDefinition,
  GraphNode,
  IngestHookResult,
  NodeIngestSummary,
  NodeState,
  NodeStatus,
  RunDetails,
  RunGraphOptions,
  RunProgress,
  RunResult,
  RunState,
  RunStatus,
  RunSummary,
  RuntimeConfig,
} from './runtime/index.js';

// artifacts: records with content hashes, the object store, lineage, replay, checkout, verify, bundles
export {
  artifactIdOf,
  artifactRecordJsonSchema,
  artifactRecordSchema,
  BundleError,
  bundleRun,
  checkoutWorkspace,
  classifyPath,
  contentHashOf,
  countLineChanges,
  importBundle,
  LineageError,
  logPath,
  ObjectStoreError,
  openArtifactRecorder,
  openObjectStore,
  readArtifactRecords,
  readPathVersions,
  readProjectRecords,
  readRunTimeline,
  rebuildArtifactIndex,
  replayRun,
  traceContentJsonSchema,
  traceContentSchema,
  verifyArtifacts,
} from './artifacts/index.js';
export type {
  ArtifactRecord,
  ArtifactRecorder,
  ArtifactRecorderOptions,
  ArtifactSource,
  ArtifactType,
  ArtifactVersionInput,
  BundleErrorCode,
  BundleSummary,
  Checkout,
  CheckoutCut,
  CheckoutOptions,
  ImportSummary,
  LineageErrorCode,
  ObjectStore,
  PathLog,
  PathVersion,
  ReplayArtifact,
  ReplayDiff,
  ReplayStep,
  RunReplay,
  RunTimeline,
  TimelineStep,
  TraceContent,
  TraceInput,
  VerifyProblem,
  VerifyProblemCode,
  VerifyReport,
} from './artifacts/index.js';
