// The public API of artifact-ingest: an explicit list of named exports, stage by stage (docs/api.md, D96).
// Each is documented in docs/api.md; test/index.test.ts pins the list, so a change to it is deliberate.

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
  ConfinedFolder,
  ConfinedReadOptions,
  ConfinedRoot,
  ConfinedRootOptions,
  ConfinedWriteOptions,
  Confinement,
  FileOpening,
  FilesystemRefusalCode,
  FolderOpening,
  PathRuleCode,
  PathVerdict,
  QuickHandle,
  ReadRefusal,
  ReadRefusalCode,
  WriteOutcome,
  WriteStep,
} from './workspace/index.js';

// store: the storage port, where a project keeps its runs (the files store, or memory, or your own)
export { createMemoryStore, openProject, openProjectStore, StoreError } from './store/index.js';
export type {
  FolderCreation,
  FolderDraft,
  FolderFill,
  LineAppender,
  OpenProjectOptions,
  Project,
  ProjectRef,
  ProjectStore,
  StoreEntry,
  StoreErrorCode,
  StoreKind,
  StoreReadOptions,
  StoreWriteOptions,
  StoredFileInfo,
  StoredFileReader,
  StoredTail,
} from './store/index.js';

// events: the events.jsonl sink and redaction
export { EventLogError, memoryEventLog, openRunEventLog, redactSecrets } from './events/index.js';
export type { EventFields, EventLevel, EventLine, EventLog, MemoryEventLog } from './events/index.js';

// project: ids, the on-disk layout, the names of the block parsers and the errors' base class
export {
  CodedError,
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
  parseProjectConfig,
  projectConfigJsonSchema,
  redactCatalogUrl,
  resolveRemoteSettings,
} from './config/index.js';
export type {
  AgentConfig,
  AgentKind,
  ConfigIssue,
  IngestLimits,
  IngestSettings,
  ProjectConfig,
  RemoteChecksums,
  RemoteObjectsSettings,
  RemoteS3Settings,
  RemoteSettings,
  RuntimeSettings,
} from './config/index.js';

// remote: the fleet's store, a PostgreSQL catalog with objects in S3 (or the catalog)
export { CATALOG_SCHEMA_VERSION, initCatalog, openRemoteStore, RemoteError } from './remote/index.js';
export type { CatalogInit, OpenRemoteOptions, RemoteErrorCode } from './remote/index.js';

// fleet: local first, then pushed; the outbox of what is not in the remote yet
export { listPending, pushRuns } from './fleet/index.js';
export { exportRunToGit, GitError, MIN_GIT_VERSION, readRunCommits } from './git/index.js';
export type {
  ExportedCommit,
  ExportRunToGitOptions,
  GitErrorCode,
  GitExport,
  GitRepo,
  RunCommit,
  SwarmRefUpdate,
} from './git/index.js';
export type { PushFailure, PushReport, PushRunsOptions } from './fleet/index.js';

// runs: what a run is, where it ran
export { HOST_ENV_VAR, resolveRunHost } from './runs/index.js';

// ingest: one document -> files, manifest v1 and events; the feature flag
export {
  IngestFailedError,
  REASON_CODES,
  ingestManifestSchema,
  manifestJsonSchema,
  parseFencesIsolated,
  resolveIngestEnabled,
  statusOfReason,
  WARNING_CODES,
} from './ingest/index.js';
export type {
  ArtifactStatus,
  BlockOutcome,
  BlockWarning,
  IngestEnabled,
  IngestEnabledInput,
  IngestEnabledSource,
  IngestManifest,
  IngestMode,
  IngestOptions,
  IngestedContent,
  IngestProblem,
  IsolatedParseOptions,
  IngestResult,
  IngestStreamEvent,
  IngestStreamOptions,
  ListedBlock,
  ManifestArtifact,
  OmittedBlocks,
  ReasonCode,
  SourceKind,
  StreamedBlockEventType,
  WarningCode,
} from './ingest/index.js';

// runtime: YAML graphs of agent nodes, runs that resume, the post-write ingest hook; the library's ingest, which
// records what it placed as the CLI's does (above ingest and artifacts, so it lives here)
export {
  AgentError,
  BUILTIN_GRAPH_NAMES,
  createAgent,
  createIngestStream,
  graphJsonSchema,
  ingestDocument,
  listRuns,
  loadGraph,
  parseGraph,
  readRun,
  RunError,
  runGraph,
  runIngest,
  runIngestHook,
  runStateSchema,
} from './runtime/index.js';
export type {
  Agent,
  AgentRequest,
  AgentUsage,
  GraphDefinition,
  GraphNode,
  IngestHookOptions,
  IngestHookResult,
  NodeContractState,
  NodeIngestSummary,
  NodeState,
  NodeStatus,
  RunBudgetsState,
  RunDetails,
  RunErrorCode,
  RunGraphOptions,
  RunProgress,
  RunResult,
  RunState,
  RunStatus,
  RunSummary,
} from './runtime/index.js';

// workflow: the step engine an outside agent drives, as the MCP server's tools do (docs/workflow-engine.md)
export {
  abortWorkflow,
  advanceWorkflow,
  listWorkflows,
  ObserveError,
  registerWorkflowArtefacts,
  startWorkflow,
  WorkflowError,
  workflowErrorCodeOf,
  WorkflowReferenceError,
  WorkflowStateError,
  workflowStatus,
} from './workflow/index.js';
export type {
  AbortWorkflowRequest,
  AdvanceWorkflowRequest,
  AdvanceWorkflowResult,
  BrokenWorkflow,
  EndedPass,
  InvalidArtefact,
  NextAction,
  ObservedPass,
  ObserveErrorCode,
  RegisterWorkflowArtefactsRequest,
  RegisterWorkflowArtefactsResult,
  RegistrationProblemCode,
  StartWorkflowRequest,
  StepIngestReport,
  WorkflowCompletion,
  WorkflowCompletionSummary,
  WorkflowContractStatus,
  WorkflowEngineDeps,
  WorkflowEngineErrorCode,
  WorkflowErrorCode,
  WorkflowListing,
  WorkflowObserver,
  WorkflowReconciliation,
  WorkflowReferenceProblem,
  WorkflowStateErrorCode,
  WorkflowStatus,
  WorkflowStatusRequest,
  WorkflowStatusResponse,
  WorkflowStepType,
  WorkflowSummary,
  WorkflowTask,
} from './workflow/index.js';

// mcp: the workflow MCP server and the bounded stdio transport it is served over (docs/mcp.md)
export { BoundedStdioTransport, createWorkflowMcpServer } from './mcp/index.js';
export type { BoundedStdioTransportOptions, WorkflowMcpServerOptions } from './mcp/index.js';

// artifacts: records with content hashes, the object store, lineage, replay, checkout, verify, bundles
export {
  artifactIdOf,
  artifactRecordJsonSchema,
  artifactRecordSchema,
  BundleError,
  copyRun,
  RunCopyError,
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
  ArtifactIdInput,
  ArtifactRecord,
  ArtifactRecorder,
  ArtifactRecorderOptions,
  ArtifactRecordsRead,
  ArtifactSource,
  ArtifactType,
  ArtifactVersionInput,
  BundleErrorCode,
  CopyRunOptions,
  RunCopy,
  RunCopyErrorCode,
  BundleOptions,
  BundleSummary,
  Checkout,
  CheckoutCut,
  CheckoutOptions,
  ImportOptions,
  ImportSummary,
  IndexRebuild,
  LineageErrorCode,
  LineChanges,
  LineCountMethod,
  LineCountOptions,
  ObjectStore,
  ObjectStoreErrorCode,
  ObjectStoreOptions,
  PathClass,
  PathLog,
  PathVersion,
  ProjectRecords,
  RecordLineProblem,
  RecordLineProblemCode,
  ReplayArtifact,
  ReplayDiff,
  ReplayOptions,
  ReplayStep,
  RunReplay,
  RunTimeline,
  TimelineStep,
  TraceContent,
  TraceInput,
  VerifyOptions,
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
  CONTRACT_DOC_URI_PREFIX,
  CONTRACT_TYPES,
  contractDocUri,
  contractJsonSchema,
  contractJsonSchemas,
  contractSummary,
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
  AuditOptions,
  AuditReport,
  Budgets,
  Completion,
  CompletionInput,
  ContractBlock,
  ContractBlockScan,
  ContractType,
  FieldError,
  Reduction,
  RunEnding,
  SubmitArtifactOptions,
  SubmitOutcome,
  SubmitRefusalCode,
  TerminalState,
  TerminalStateName,
} from './contracts/index.js';

// report: a run or a path's lineage as data and as one HTML page (docs/report.md)
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
  ReportCommit,
  ReportContract,
  ReportDiff,
  ReportDocument,
  ReportFieldError,
  ReportFile,
  ReportLimits,
  ReportLinks,
  ReportProblem,
  ReportRunHeader,
  ReportStep,
  ReportStepContract,
  ReportStepStatus,
  ReportVerify,
  RunReport,
  RunReportOptions,
} from './report/index.js';

// openlineage: a run as OpenLineage RunEvents and their delivery (docs/openlineage.md)
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
