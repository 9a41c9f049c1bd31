export { ConfigError } from './config-error.js';
export type { ConfigIssue } from './config-error.js';
export { parseYamlWithSchema } from './parse-yaml-with-schema.js';
export type { AllowedKeys, YamlIssueParams } from './parse-yaml-with-schema.js';
export { closestMatch } from './closest-match.js';
export { describeValue } from './describe-value.js';
export {
  CONFIG_READ_FLAGS,
  MAX_CONFIG_FILE_BYTES,
  readConfigText,
  readOpenedConfigText,
} from './read-config-text.js';
export type { OpenedConfigFile } from './read-config-text.js';
export { firstLineOf, MAX_QUOTED_CHARS, quoteSourceText } from './quote-source-text.js';
export { parseIngestFlag } from './parse-ingest-flag.js';
export { DEFAULT_INGEST_LIMITS, defaultMaxParseMs } from './ingest-limits.js';
export type { IngestLimits } from './ingest-limits.js';
export type { AgentConfig, AgentKind } from './agent-config.js';
export { RUNTIME_CONFIG_DEFAULTS } from './agents-config.js';
export type { RuntimeSettings } from './agents-config.js';
export {
  DEFAULT_PROJECT_CONFIG,
  PROJECT_CONFIG_KEYS,
  projectConfigFileSchema,
  projectConfigSchema,
} from './project-config.js';
export type { GitSettings, IngestSettings, ProjectConfig } from './project-config.js';
export { loadProjectConfig, parseProjectConfig } from './load-project-config.js';
export type {
  RemoteChecksums,
  RemoteObjectsSettings,
  RemoteS3Settings,
  RemoteSettings,
} from './remote-settings.js';
export { REMOTE_CHECKSUMS } from './remote-config.js';
export {
  REMOTE_CATALOG_ENV,
  REMOTE_OBJECTS_ENV,
  REMOTE_PROJECT_ENV,
  resolveRemoteSettings,
} from './resolve-remote-settings.js';
export { redactCatalogUrl } from './redact-catalog-url.js';
export { projectConfigJsonSchema } from './config-json-schema.js';
export { textSchema } from './text-schema.js';
export { withRules } from './with-rules.js';
export type { YamlRuleIssue } from './with-rules.js';
export { describeSchemaIssues } from './describe-schema-issues.js';
