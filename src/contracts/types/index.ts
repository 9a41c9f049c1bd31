export { CONTRACT_TYPES, contractTypeSchema, isContractType } from './contract-type.js';
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
export { CONTRACT_EXAMPLES } from './contract-examples.js';
export { contractJsonSchema, contractJsonSchemas } from './contract-json-schema.js';
export { contractFields } from './contract-fields.js';
export type { ContractField } from './contract-fields.js';
export { renderContractDoc } from './render-contract-doc.js';
export {
  CONTRACT_DOC_URI_PREFIX,
  MAX_SUMMARY_EXAMPLE_CHARS,
  contractDocUri,
  contractSummary,
} from './contract-summary.js';
