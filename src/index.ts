// The public API of artifact-ingest: an explicit list of named exports, stage by stage.

// fence: markdown text -> candidate blocks (pure)
export { parseFences } from './fence/index.js';
export type {
  FenceBlock,
  FenceFormatCode,
  FenceScan,
  FenceVerdict,
  OmittedCandidateKind,
  OmittedCandidates,
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

// project: ids, the on-disk layout and the names of the block parsers
export {
  DEFAULT_FENCE_PARSER,
  FENCE_PARSERS,
  InvalidIdError,
  ID_PATTERN,
  parseNodeId,
  parseRunId,
  UnknownRunError,
} from './project/index.js';
export type { FenceParser, NodeId, RunId } from './project/index.js';

// config: the one config file, YAML + zod with line/column errors
export {
  ConfigError,
  DEFAULT_INGEST_LIMITS,
  DEFAULT_PROJECT_CONFIG,
  loadProjectConfig,
  parseIngestFlag,
  parseProjectConfig,
  projectConfigJsonSchema,
} from './config/index.js';
export type {
  AgentConfig,
  AgentKind,
  ConfigIssue,
  IngestLimits,
  IngestSettings,
  ProjectConfig,
  RuntimeSettings,
} from './config/index.js';

// ingest: one document -> files, manifest v1 and events; the feature flag
export {
  IngestFailedError,
  INGEST_ENV_VAR,
  REASON_CODES,
  deriveNodeId,
  ingestDocument,
  ingestManifestSchema,
  manifestArtifactSchema,
  openIngestRoots,
  parseFencesIsolated,
  resolveIngestEnabled,
  runIngest,
  statusOfReason,
} from './ingest/index.js';
export type {
  ArtifactStatus,
  BlockOutcome,
  IngestEnabled,
  IngestEnabledInput,
  IngestManifest,
  IngestMode,
  IngestOptions,
  IngestedContent,
  IngestProblem,
  IsolatedParseOptions,
  IngestResult,
  IngestRoots,
  ManifestArtifact,
  OmittedBlocks,
  ReasonCode,
  SourceKind,
} from './ingest/index.js';

// runtime: YAML graphs of agent nodes, runs that resume, the post-write ingest hook
export {
  AgentError,
  BUILTIN_GRAPH_NAMES,
  createAgent,
  graphJsonSchema,
  listRuns,
  loadGraph,
  parseGraph,
  readRun,
  RunError,
  runGraph,
  runIngestHook,
  runStateSchema,
} from './runtime/index.js';
export type {
  Agent,
  AgentRequest,
  GraphDefinition,
  GraphNode,
  IngestHookResult,
  NodeContractState,
  NodeIngestSummary,
  NodeState,
  NodeStatus,
  RunBudgetsState,
  RunDetails,
  RunGraphOptions,
  RunProgress,
  RunResult,
  RunState,
  RunStatus,
  RunSummary,
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

// contracts: typed artifacts, the one canonical submission path, completion, terminal states, audit
export {
  ARTIFACT_SCHEMAS,
  auditArtifacts,
  budgetsSchema,
  chooseTerminal,
  CONTRACT_EXAMPLES,
  CONTRACT_TYPES,
  contractJsonSchema,
  contractJsonSchemas,
  describeFieldErrors,
  fixRequest,
  isContractType,
  judgeCompletion,
  readContractBlocks,
  readTerminal,
  reduceArtifact,
  submitArtifact,
  terminalStateSchema,
  TERMINAL_STATES,
  validateArtifact,
  validateArtifactText,
} from './contracts/index.js';
export type {
  ArtifactPayload,
  ArtifactValidation,
  AuditFinding,
  AuditFindingCode,
  AuditReport,
  Budgets,
  Completion,
  ContractBlock,
  ContractBlockScan,
  ContractType,
  FieldError,
  Reduction,
  SubmitArtifactOptions,
  SubmitOutcome,
  SubmitRefusalCode,
  TerminalState,
  TerminalStateName,
} from './contracts/index.js';
export {
  DEFAULT_DOCUMENT_TIME_LIMIT_MS,
  DEFAULT_PAGE_TIME_LIMIT_MS,
  DEFAULT_REPORT_LIMITS,
  IsolatedMarkdownRenderer,
  readPathReport,
  readRunReport,
  renderPathReportPage,
  renderRunReportPage,
} from './report/index.js';
export type {
  IsolatedMarkdownRendererOptions,
  RunReportPageOptions,
  PathReport,
  PathReportVersion,
  ReportBlock,
  ReportBudgets,
  ReportCaps,
  ReportContract,
  ReportDiff,
  ReportDocument,
  ReportFieldError,
  ReportFile,
  ReportLimits,
  ReportProblem,
  ReportRunHeader,
  ReportStep,
  ReportStepContract,
  ReportStepStatus,
  ReportVerify,
  RunReport,
  RunReportOptions,
} from './report/index.js';
export {
  CUSTOM_FACET_KEYS,
  DEFAULT_LINEAGE_NAMESPACE,
  facetSourcesFor,
  lineageEndpoint,
  lineageRunUuid,
  openLineageEventsOf,
  RUN_EVENT_SCHEMA_URL,
  runEventSchema,
  sendLineageEvents,
} from './report/index.js';
export type {
  FacetSources,
  LineageDataset,
  LineageEndpoint,
  LineageFacet,
  LineageFacets,
  LineageSendErrorCode,
  LineageSendFailure,
  LineageSendProgress,
  LineageSendResult,
  OpenLineageOptions,
  RunEvent,
  SendLineageOptions,
} from './report/index.js';
