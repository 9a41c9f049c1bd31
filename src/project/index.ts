export { CodedError } from './coded-error.js';
export { DEFAULT_FENCE_PARSER, FENCE_PARSERS } from './fence-parser.js';
export type { FenceParser } from './fence-parser.js';
export { ID_PATTERN, ID_RULE, MAX_ID_LENGTH, isId, sanitizeId } from './id-pattern.js';
export {
  InvalidIdError,
  SECRET_IN_ID,
  isNodeId,
  isRunId,
  nodeIdSchema,
  parseNodeId,
  parseRunId,
  runIdSchema,
} from './ids.js';
export type { NodeId, RunId } from './ids.js';
export {
  AGENT_DIR,
  AUDITS_DIR,
  BUNDLE_MANIFEST_PATH,
  CONTRACT_ARTIFACTS_DIR,
  DOCS_DIR,
  HISTORY_INDEX_DIR,
  HISTORY_LOCK_PATH,
  INDEX_DIR,
  OBJECTS_DIR,
  PATH_INDEX_DIR,
  PROJECT_CONFIG_FILE,
  RECORD_TOP_FOLDERS,
  RUN_ORDER_INDEX_PATH,
  RUNS_DIR,
  WORKFLOWS_DIR,
  WORKSPACE_DIR,
  WORKSPACE_LOCK_PATH,
  artifactRecordsPath,
  contractArtifactPath,
  manifestPath,
  objectPath,
  pathIndexEntry,
  pathIndexFile,
  runDir,
  runDocsDir,
  runEventsPath,
  runLockPath,
  runManifestsDir,
  runStatePath,
  runTransitionsPath,
  submitLockPath,
  terminalStatePath,
  tracePath,
  watchStatePath,
  workspacePath,
} from './project-layout.js';
export { sha256Hex } from './sha256.js';
export { describeError } from './describe-error.js';
export { UnknownRunError } from './unknown-run-error.js';
export {
  REDACTED,
  SECRET_PATTERN_NAMES,
  findSecret,
  holdsSecret,
  redactSecrets,
  type FoundSecret,
} from './find-secret.js';
export { redactJson } from './redact-json.js';
export {
  MIN_LITERAL_SECRET_LENGTH,
  isRedactableLiteral,
  redactLiteralSecrets,
  type LiteralRedactionOptions,
} from './redact-literal-secrets.js';
export { lazyModule } from './lazy-module.js';
export { escapeLineText, escapeTerminalText } from './escape-terminal-text.js';
export { mapLimit } from './map-limit.js';
export { parseHttpUrl } from './parse-http-url.js';
export type { HttpUrl } from './parse-http-url.js';
