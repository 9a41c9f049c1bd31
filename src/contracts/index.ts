export { CONTRACT_TYPES, contractTypeSchema, isContractType } from './types/index.js';
export type { ContractType } from './types/index.js';
export {
  ARTIFACT_SCHEMAS,
  COMMIT_TYPES,
  MAX_SUBJECT_LENGTH,
  PROJECT_PATH_PATTERN,
  artifactSchemaOf,
} from './types/index.js';
export type { ArtifactPayload } from './types/index.js';
export { MAX_FIELD_ERRORS, fieldError, fieldErrorsOf, formatFieldPath } from './types/index.js';
export type { FieldError } from './types/index.js';
export {
  MAX_ARTIFACT_BYTES,
  describeFieldErrors,
  validateArtifact,
  validateArtifactText,
} from './types/index.js';
export type { ArtifactValidation } from './types/index.js';
export { submitArtifact } from './submit/index.js';
export type { SubmitArtifactOptions, SubmitOutcome, SubmitRefusalCode } from './submit/index.js';
export { reduceArtifact } from './completion/index.js';
export type { Reduction } from './completion/index.js';
export { judgeCompletion } from './completion/index.js';
export type { AttemptSubmission, Completion, CompletionInput } from './completion/index.js';
export { fixRequest } from './completion/index.js';
export { TERMINAL_STATES, declareTerminal, readTerminal, terminalStateSchema } from './completion/index.js';
export type { TerminalState, TerminalStateName } from './completion/index.js';
export { omittedBlocksError, readContractBlocks } from './submit/index.js';
export type { ContractBlock, ContractBlockScan } from './submit/index.js';
export { DEFAULT_MAX_FIX_ATTEMPTS, budgetsSchema } from './completion/index.js';
export type { BudgetName, Budgets } from './completion/index.js';
export { readLatestPayload, readSubmissions } from './submit/index.js';
export type { RecordedSubmission } from './submit/index.js';
export { chooseTerminal } from './completion/index.js';
export type { RunEnding } from './completion/index.js';
export { auditArtifacts } from './audit/index.js';
export type { AuditFinding, AuditFindingCode, AuditOptions, AuditReport } from './audit/index.js';
export { CONTRACT_EXAMPLES } from './types/index.js';
export { contractJsonSchema, contractJsonSchemas } from './types/index.js';
export { contractFields, renderContractDoc } from './types/index.js';
export {
  CONTRACT_DOC_URI_PREFIX,
  MAX_SUMMARY_EXAMPLE_CHARS,
  contractDocUri,
  contractSummary,
} from './types/index.js';
export type { ContractField } from './types/index.js';
