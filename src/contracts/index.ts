export { CONTRACT_TYPES, isContractType } from './contract-type.js';
export type { ContractType } from './contract-type.js';
export {
  ARTIFACT_SCHEMAS,
  COMMIT_TYPES,
  MAX_SUBJECT_LENGTH,
  PROJECT_PATH_PATTERN,
  artifactSchemaOf,
} from './artifact-schemas.js';
export type { ArtifactPayload } from './artifact-schemas.js';
export { MAX_FIELD_ERRORS, fieldError, fieldErrorsOf, formatFieldPath } from './field-error.js';
export type { FieldError } from './field-error.js';
export {
  MAX_ARTIFACT_BYTES,
  describeFieldErrors,
  validateArtifact,
  validateArtifactText,
} from './validate-artifact.js';
export type { ArtifactValidation } from './validate-artifact.js';
export { submitArtifact } from './submit-artifact.js';
export type { SubmitArtifactOptions, SubmitOutcome, SubmitRefusalCode } from './submit-artifact.js';
export { reduceArtifact } from './reduce-artifact.js';
export type { Reduction } from './reduce-artifact.js';
export { judgeCompletion } from './judge-completion.js';
export type { AttemptSubmission, Completion, CompletionInput } from './judge-completion.js';
export { fixRequest } from './fix-request.js';
export { TERMINAL_STATES, declareTerminal, readTerminal, terminalStateSchema } from './terminal-state.js';
export type { TerminalState, TerminalStateName } from './terminal-state.js';
export { readContractBlocks } from './read-contract-blocks.js';
export type { ContractBlock } from './read-contract-blocks.js';
export { DEFAULT_MAX_FIX_ATTEMPTS, budgetsSchema } from './budgets.js';
export type { BudgetName, Budgets } from './budgets.js';
export { readLatestPayload, readSubmissions } from './read-submissions.js';
export type { RecordedSubmission } from './read-submissions.js';
export { chooseTerminal } from './choose-terminal.js';
export type { RunEnding } from './choose-terminal.js';
export { auditArtifacts } from './audit-artifacts.js';
export type { AuditFinding, AuditFindingCode, AuditOptions, AuditReport } from './audit-artifacts.js';
export { CONTRACT_EXAMPLES } from './contract-examples.js';
export { contractJsonSchema, contractJsonSchemas } from './contract-json-schema.js';
export { contractFields, renderContractDoc } from './render-contract-doc.js';
export type { ContractField } from './render-contract-doc.js';
