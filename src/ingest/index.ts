export { ingestDocument, runIngest, IngestFailedError } from './ingest-document.js';
export type { IngestOptions, IngestResult, IngestProblem, IngestedContent } from './ingest-document.js';
export {
  ingestManifestSchema,
  manifestArtifactSchema,
  runIdSchema,
  ingestModeSchema,
  sourceKindSchema,
} from './ingest-manifest.js';
export type { IngestManifest, ManifestArtifact, IngestMode, SourceKind } from './ingest-manifest.js';
export { REASON_CODES, statusOfReason } from './reason-code.js';
export type { ReasonCode, ArtifactStatus, IngestPolicyCode } from './reason-code.js';
export { planBlocks } from './plan-blocks.js';
export type { BlockPlan } from './plan-blocks.js';
export { deriveNodeId, defaultCliRunId } from './derive-node-id.js';
export { DEFAULT_INGEST_LIMITS } from './ingest-limits.js';
export type { IngestLimits } from './ingest-limits.js';
export { ConfigError } from './config-error.js';
export type { ConfigIssue } from './config-error.js';
export { loadProjectConfig, parseProjectConfig } from './load-config.js';
export {
  closestMatch,
  parseYamlWithSchema,
  type AllowedKeys,
  type YamlIssueParams,
} from './parse-yaml-with-schema.js';
export { DEFAULT_PROJECT_CONFIG, PROJECT_CONFIG_FILE, projectConfigSchema } from './project-config.js';
export type { ProjectConfig } from './project-config.js';
export { INGEST_ENV_VAR, parseIngestFlag, resolveIngestEnabled } from './resolve-ingest-enabled.js';
export type { IngestEnabled, IngestEnabledInput, IngestEnabledSource } from './resolve-ingest-enabled.js';
export { manifestJsonSchema } from './manifest-json-schema.js';
export { describeValue } from './describe-value.js';
